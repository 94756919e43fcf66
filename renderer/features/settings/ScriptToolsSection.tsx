/**
 * Settings → Script tools: the time, memory and output limits a script tool runs with when it
 * sets none of its own (saved as one `scriptTools` change), and the drop-in folder where a
 * tool's files can be dropped to be registered.
 */
import { useState, type FormEvent } from 'react';
import { SCRIPT_LIMITS } from '../../../shared/model/script-tool';
import { formatBytes } from '../../../shared/bytes';
import { useOp, useOpMutation } from '../../api/hooks';
import { DropInFolder } from '../../components/DropInFolder';
import { NumberField } from '../../components/Field';
import { scriptStrings } from '../../i18n/script-strings';
import { fromScriptSettingsDraft, scriptSettingsFieldOf, SCRIPT_SETTINGS_KEYS, toScriptSettingsDraft, type ScriptSettingsDraft } from './script-settings-draft';

const s = scriptStrings.settings;
const LABELS = { timeLimitMs: scriptStrings.panel.timeLimitMs, memoryLimitMb: scriptStrings.panel.memoryLimitMb, maxOutputBytes: scriptStrings.panel.maxOutputBytes };
const HELP = { timeLimitMs: s.timeLimitHelp, memoryLimitMb: s.memoryLimitHelp, maxOutputBytes: s.maxOutputHelp };

export function ScriptToolsSection() {
  const settings = useOp('settings.get', {});
  const save = useOpMutation('settings.set');
  const saved = settings.data?.scriptTools;
  // Until the first edit (and again once saved), the form shows what is saved.
  const [edited, setDraft] = useState<ScriptSettingsDraft | null>(null);
  if (!saved) return null;
  const draft = edited ?? toScriptSettingsDraft(saved);
  const dirty = JSON.stringify(toScriptSettingsDraft(saved)) !== JSON.stringify(draft);
  const details = save.error?.info.details as { field?: string; issues?: { path: string; message: string }[] } | undefined;
  const issues = details?.issues ?? [];
  const errorOf = (key: keyof ScriptSettingsDraft): string | undefined => {
    const issue = issues.find((i) => scriptSettingsFieldOf(i.path) === key);
    if (issue) return issue.message;
    if (details?.field && scriptSettingsFieldOf(details.field) === key) return save.error?.message;
    // A refusal that names no box: under the first.
    return key === 'timeLimitMs' && save.error && issues.length === 0 && !details?.field ? save.error.message : undefined;
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ scriptTools: fromScriptSettingsDraft(draft) }, { onSuccess: () => setDraft(null) });
  };
  const size = /^\d+$/.test(draft.maxOutputBytes.trim()) ? formatBytes(Number(draft.maxOutputBytes.trim())) : null;

  return (
    <section className="settings-section script-tools" aria-labelledby="script-tools-title" data-testid="settings-script-tools">
      <h2 id="script-tools-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      <form className="settings-form" onSubmit={onSubmit} aria-label={s.title} noValidate>
        <div className="tool-outputs-row">
          {SCRIPT_SETTINGS_KEYS.map((key) => (
            <NumberField
              key={key}
              className="tool-outputs-field"
              id={`script-${key}`}
              label={LABELS[key]}
              hint={key === 'maxOutputBytes' && size ? `${HELP[key]} ${scriptStrings.panel.outputSize(size)}` : HELP[key]}
              error={errorOf(key)}
              errorTestId={`script-settings-${key}-error`}
              announce="alert"
              testId={`script-settings-${key}`}
              step={1}
              min={SCRIPT_LIMITS[key].min}
              max={SCRIPT_LIMITS[key].max}
              required
              value={draft[key]}
              onChange={(text) => setDraft({ ...draft, [key]: text })}
            />
          ))}
        </div>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={!dirty || save.isPending} data-testid="script-settings-save">
            {save.isPending ? s.saving : s.save}
          </button>
          {save.isSuccess && !dirty && (
            <span className="status-ok" role="status" data-testid="script-settings-saved">
              {s.saved}
            </span>
          )}
        </div>
      </form>
      <DropInFolder />
    </section>
  );
}
