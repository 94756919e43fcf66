import { useEffect, useState, type FormEvent } from 'react';
import { TOOLS_PER_BUNDLE_MAX, TOOLS_PER_BUNDLE_MIN, type Settings } from '../../../shared/model/settings';
import { allowedHostProblems, describeAllowedHostProblem } from '../../../shared/model/allowed-hosts';
import { useOp, useOpMutation } from '../../api/hooks';
import { Field, NumberField } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { t } from '../../i18n/strings';
import { useUi } from '../../stores/ui';
import { ProblemsList } from '../../components/ProblemsList';
import { useSettingsRequest } from '../../components/fix-it';
import { agentsStrings } from '../../i18n/agents-strings';
import { mcpServerStrings } from '../../i18n/mcp-server-strings';
import { memorySourcesStrings } from '../../i18n/memory-sources-strings';
import { outputStrings } from '../../i18n/output-strings';
import { toolSearchStrings } from '../../i18n/tool-search-strings';
import { SettingsNav, type SettingsSectionLink } from './SettingsNav';
import { ApprovalsSection } from './ApprovalsSection';
import { McpServerSection } from './McpServerSection';
import { MemorySourcesSection } from './MemorySourcesSection';
import { AgentsSection } from './AgentsSection';
import { ProvidersSection } from './ProvidersSection';
import { SecretsSection } from './SecretsSection';
import { ToolOutputsSection } from './ToolOutputsSection';
import { ToolSearchSection } from './ToolSearchSection';
import { ScriptToolsSection } from './ScriptToolsSection';
import { scriptStrings } from '../../i18n/script-strings';

interface Draft {
  theme: Settings['theme'];
  workspaceDir: string;
  allowedHosts: string;
  modelRouting: string;
  /** Seconds, as typed. */
  regexTimeLimit: string;
  /** Levels, as typed. */
  delegationDepth: string;
  /** Tool versions, as typed. */
  toolsPerBundle: string;
}

/** The sections in page order, each by its heading's id (About only once the app's info is in). */
const sectionLinks = (withAbout: boolean): SettingsSectionLink[] => [
  { id: 'settings-appearance', label: t.settings.appearance },
  { id: 'settings-workspace', label: t.settings.workspaceSection },
  { id: 'settings-network', label: t.settings.networkSection },
  { id: 'settings-routing', label: t.settings.routingSection },
  { id: 'settings-limits', label: t.settings.limitsSection },
  { id: 'tool-outputs-title', label: outputStrings.settings.title },
  { id: 'tool-search-title', label: toolSearchStrings.title },
  { id: 'script-tools-title', label: scriptStrings.settings.title },
  { id: 'models-title', label: t.settings.models.title },
  { id: 'agents-title', label: agentsStrings.title },
  { id: 'approvals-title', label: t.settings.approvals.title },
  { id: 'memory-sources-title', label: memorySourcesStrings.title },
  { id: 'mcp-server-title', label: mcpServerStrings.title },
  ...(withAbout ? [{ id: 'about-title', label: t.settings.about }] : []),
  { id: 'secrets-title', label: t.settings.secrets },
  { id: 'problems-title', label: t.settings.problems },
];

const lines = (text: string) => text.split('\n').map((h) => h.trim()).filter(Boolean);
const toDraft = (s: Settings): Draft => ({
  theme: s.theme,
  workspaceDir: s.workspaceDir,
  allowedHosts: s.allowedHosts.join('\n'),
  modelRouting: s.modelRouting.join('\n'),
  regexTimeLimit: String(s.regexTimeLimitMs / 1000),
  delegationDepth: String(s.maxDelegationDepth),
  toolsPerBundle: String(s.maxToolsPerBundle),
});
/** Seconds as typed to whole milliseconds; NaN when not a number (the core refuses it with the field's bounds). */
const toMs = (seconds: string): number => (seconds.trim() === '' ? Number.NaN : Math.round(Number(seconds.trim()) * 1000));
/** A count as typed; NaN when empty (the core refuses it with the field's bounds). */
const toCount = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

export function SettingsScreen() {
  const settings = useOp('settings.get', {});
  const info = useOp('app.info', {});
  const save = useOpMutation('settings.set');
  const [draft, setDraft] = useState<Draft | null>(null);
  /** Allowed-host entries refused before saving, each said for a person (which line, what is wrong, the fix). */
  const [hostProblems, setHostProblems] = useState<string[]>([]);

  // The form starts from what is saved, once it is read.
  if (settings.data && draft === null) setDraft(toDraft(settings.data));

  // Sent here to allow a host (the first-run checklist): the field, in view, with the cursor in it.
  const settingsFocus = useUi((u) => u.settingsFocus);
  const formShown = draft !== null;
  useEffect(() => {
    if (settingsFocus !== 'allowed-hosts' || !formShown) return;
    useUi.getState().clearSettingsFocus();
    const field = document.getElementById('allowed-hosts');
    field?.scrollIntoView({ block: 'center' });
    field?.focus();
    if (field instanceof HTMLTextAreaElement) field.setSelectionRange(field.value.length, field.value.length);
  }, [settingsFocus, formShown]);

  // Sent here by a run refused for a host not allowed: the host added to the field (saved only by Save), the field focused.
  const hostRequested = useSettingsRequest((r) => r.request?.kind === 'host');
  useEffect(() => {
    if (!hostRequested || !formShown) return;
    const fix = useSettingsRequest.getState().take('host');
    if (!fix) return;
    setDraft((d) => (d && !lines(d.allowedHosts).includes(fix.entry) ? { ...d, allowedHosts: [...lines(d.allowedHosts), fix.entry].join('\n') } : d));
    useUi.getState().openSettings('allowed-hosts');
  }, [hostRequested, formShown]);

  if (settings.error) return <QueryError error={settings.error} onRetry={() => void settings.refetch()} />;
  if (!settings.data || !draft) return null;

  const saved = toDraft(settings.data);
  const dirty = JSON.stringify(saved) !== JSON.stringify(draft);
  const errorField = (save.error?.info.details as { field?: string; issues?: { path: string }[] } | undefined)?.field;
  const issuePaths = (save.error?.info.details as { issues?: { path: string }[] } | undefined)?.issues?.map((i) => i.path) ?? [];
  const fieldError = (field: string) => (errorField === field || issuePaths.some((p) => p.startsWith(field)) ? save.error?.message : undefined);
  const hostsError = hostProblems.length > 0 ? hostProblems.join(' ') : fieldError('allowedHosts');

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const problems = allowedHostProblems(lines(draft.allowedHosts)).map(describeAllowedHostProblem);
    setHostProblems(problems);
    if (problems.length > 0) {
      document.getElementById('allowed-hosts')?.focus();
      return;
    }
    save.mutate(
      {
        theme: draft.theme,
        workspaceDir: draft.workspaceDir.trim(),
        allowedHosts: lines(draft.allowedHosts),
        modelRouting: lines(draft.modelRouting),
        regexTimeLimitMs: toMs(draft.regexTimeLimit),
        maxDelegationDepth: toCount(draft.delegationDepth),
        maxToolsPerBundle: toCount(draft.toolsPerBundle),
      },
      { onSuccess: (next) => setDraft(toDraft(next)) },
    );
  };

  return (
    <section className="screen settings-screen" aria-labelledby="settings-title" data-testid="screen-settings">
      <header className="screen-header">
        <h1 id="settings-title">{t.settings.title}</h1>
      </header>
      <div className="settings-layout">
      <SettingsNav sections={sectionLinks(!!info.data)} />
      <div className="settings-body">
      <form className="settings-form" onSubmit={onSubmit} aria-label={t.settings.title}>
        <fieldset>
          <legend id="settings-appearance">{t.settings.appearance}</legend>
          <label htmlFor="theme">{t.settings.theme}</label>
          <select
            id="theme"
            data-testid="settings-theme"
            value={draft.theme}
            onChange={(e) => setDraft({ ...draft, theme: e.target.value as Draft['theme'] })}
          >
            {(['system', 'light', 'dark'] as const).map((th) => (
              <option key={th} value={th}>
                {t.settings.themes[th]}
              </option>
            ))}
          </select>
        </fieldset>
        <fieldset>
          <legend id="settings-workspace">{t.settings.workspaceSection}</legend>
          <Field id="workspace" label={t.settings.workspace} hint={t.settings.workspaceHelp} announce="alert" error={fieldError('workspaceDir')} errorTestId="settings-workspace-error">
            {(control) => (
              <input
                {...control}
                data-testid="settings-workspace"
                value={draft.workspaceDir}
                placeholder={info.data?.workspaceDir}
                onChange={(e) => setDraft({ ...draft, workspaceDir: e.target.value })}
              />
            )}
          </Field>
        </fieldset>
        <fieldset>
          <legend id="settings-network">{t.settings.networkSection}</legend>
          <Field id="allowed-hosts" label={t.settings.allowedHosts} hint={t.settings.allowedHostsHelp} announce="alert" error={hostsError} errorTestId="settings-hosts-error">
            {(control) => (
              <textarea
                {...control}
                data-testid="settings-allowed-hosts"
                rows={4}
                value={draft.allowedHosts}
                onChange={(e) => {
                  setDraft({ ...draft, allowedHosts: e.target.value });
                  if (hostProblems.length > 0) setHostProblems([]);
                }}
              />
            )}
          </Field>
        </fieldset>
        <fieldset>
          <legend id="settings-routing">{t.settings.routingSection}</legend>
          <Field id="model-routing" label={t.settings.modelRouting} hint={t.settings.modelRoutingHelp} announce="alert" error={fieldError('modelRouting')} errorTestId="settings-routing-error">
            {(control) => <textarea {...control} data-testid="settings-model-routing" rows={3} value={draft.modelRouting} onChange={(e) => setDraft({ ...draft, modelRouting: e.target.value })} />}
          </Field>
        </fieldset>
        <fieldset>
          <legend id="settings-limits">{t.settings.limitsSection}</legend>
          <NumberSetting
            id="regex-time-limit"
            label={t.settings.regexTimeLimit}
            help={t.settings.regexTimeLimitHelp}
            min={0.1}
            max={60}
            step={0.1}
            value={draft.regexTimeLimit}
            error={fieldError('regexTimeLimitMs')}
            onChange={(v) => setDraft({ ...draft, regexTimeLimit: v })}
          />
          <NumberSetting
            id="delegation-depth"
            label={t.settings.delegationDepth}
            help={t.settings.delegationDepthHelp}
            min={1}
            max={10}
            step={1}
            value={draft.delegationDepth}
            error={fieldError('maxDelegationDepth')}
            onChange={(v) => setDraft({ ...draft, delegationDepth: v })}
          />
          <NumberSetting
            id="tools-per-bundle"
            label={t.settings.toolsPerBundle}
            help={t.settings.toolsPerBundleHelp}
            min={TOOLS_PER_BUNDLE_MIN}
            max={TOOLS_PER_BUNDLE_MAX}
            step={1}
            value={draft.toolsPerBundle}
            error={fieldError('maxToolsPerBundle')}
            onChange={(v) => setDraft({ ...draft, toolsPerBundle: v })}
          />
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!dirty || save.isPending} data-testid="settings-save">
            {save.isPending ? t.settings.saving : t.settings.save}
          </button>
          <button type="button" disabled={!dirty} onClick={() => setDraft(saved)}>
            {t.settings.reset}
          </button>
          {save.isSuccess && !dirty && (
            <span className="status-ok" role="status" data-testid="settings-saved">
              {t.settings.saved}
            </span>
          )}
        </div>
      </form>
      <ToolOutputsSection />
      <ToolSearchSection />
      <ScriptToolsSection />
      <ProvidersSection />
      <AgentsSection />
      <ApprovalsSection />
      <MemorySourcesSection />
      <McpServerSection />
      {info.data && (
        <section className="about" aria-labelledby="about-title">
          <h2 id="about-title">{t.settings.about}</h2>
          <dl>
            <dt>{t.settings.version}</dt>
            <dd data-testid="about-version">{info.data.version}</dd>
            <dt>{t.settings.host}</dt>
            <dd>{t.settings.hosts[info.data.host]}</dd>
            <dt>{t.settings.dataDir}</dt>
            <dd data-testid="about-data-dir">
              <code>{info.data.dataDir}</code>
            </dd>
            <dt>{t.settings.workspace}</dt>
            <dd>
              <code>{info.data.workspaceDir}</code>
            </dd>
          </dl>
        </section>
      )}
      <SecretsSection />
      <ProblemsList />
      </div>
      </div>
    </section>
  );
}

interface NumberSettingProps {
  /** The input's id; its test id is `settings-<id>`, its help and error `<id>-help`, `<id>-error`. */
  id: string;
  label: string;
  help: string;
  min: number;
  max: number;
  step: number;
  /** As typed. */
  value: string;
  /** The core's refusal of this field, if any. */
  error: string | undefined;
  onChange: (value: string) => void;
}

/** A number of Settings → Limits: its label, the input, its help, and the core's refusal under it. */
function NumberSetting({ id, label, help, min, max, step, value, error, onChange }: NumberSettingProps) {
  return (
    <NumberField id={id} label={label} hint={help} error={error} errorTestId={`settings-${id}-error`} announce="alert" testId={`settings-${id}`} min={min} max={max} step={step} value={value} onChange={onChange} />
  );
}
