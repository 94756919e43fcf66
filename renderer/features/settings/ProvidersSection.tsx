/**
 * Settings → Models: the providers (test, edit, delete), local servers found running,
 * the model new conversations start with, and the model that writes documents' summaries.
 * A provider added while no model is chosen for new conversations gives them its first
 * model, once its test lists its models.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ConnectionVerdict, DetectedProvider, Provider } from '../../../shared/model/provider';
import { useApi, useOp, useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { t } from '../../i18n/strings';
import { modelGroups, modelValue, parseModelValue } from '../chat/model-options';
import { useUi } from '../../stores/ui';
import { ProviderForm } from './ProviderForm';
import './settings.css';

const m = t.settings.models;
/** Models listed in a verdict before "and N more". */
const VERDICT_MODELS = 12;

type Editing = { kind: 'new' } | { kind: 'edit'; provider: Provider } | null;

/** Model ids that are not for chat (the first provider's default is a chat model). */
const NOT_CHAT = /embed|tts|whisper|transcri|speech|audio|dall-e|image|moderation|rerank/i;

export function ProvidersSection() {
  const { client } = useApi();
  const qc = useQueryClient();
  const providers = useOp('providers.list', {});
  const test = useOpMutation('providers.test');
  const remove = useOpMutation('providers.delete');
  const [editing, setEditing] = useState<Editing>(null);
  const [verdicts, setVerdicts] = useState<Record<string, ConnectionVerdict>>({});
  const [testing, setTesting] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const settingsFocus = useUi((u) => u.settingsFocus);

  // Sent here to add a model (the first-run checklist): open the form and put the cursor in it.
  useEffect(() => {
    if (settingsFocus !== 'add-provider') return;
    useUi.getState().clearSettingsFocus();
    setNotice(null);
    setEditing({ kind: 'new' });
    requestAnimationFrame(() => {
      sectionRef.current?.scrollIntoView({ block: 'start' });
      sectionRef.current?.querySelector<HTMLElement>('form input, form select')?.focus();
    });
  }, [settingsFocus]);

  /** New conversations start with the provider's first model when they have none yet. */
  const adoptAsDefault = async (p: Provider, models: readonly string[]) => {
    // A chat model: servers list embedding, speech, image and moderation models beside them.
    const model = models.find((id) => !NOT_CHAT.test(id));
    if (!model) return;
    try {
      const current = await client.call('settings.get', {});
      if (!current.ok || current.value.defaultModel) return;
      const set = await client.call('settings.set', { defaultModel: { providerId: p.id, model } });
      if (!set.ok) return;
      void qc.invalidateQueries({ queryKey: ['settings.get'] });
      setNotice(m.defaultChosen(p.name, model));
    } catch {
      // Nothing chosen: the select below still offers its models.
    }
  };

  const runTest = (id: string, added?: Provider) => {
    setTesting((s) => new Set(s).add(id));
    test.mutate(
      { id },
      {
        onSuccess: (v) => {
          setVerdicts((all) => ({ ...all, [id]: v }));
          if (added && v.ok && v.models?.length) void adoptAsDefault(added, v.models);
        },
        onError: (e) => setVerdicts((all) => ({ ...all, [id]: { ok: false, message: `${e.info.code}: ${e.message}` } })),
        onSettled: () => {
          setTesting((s) => {
            const next = new Set(s);
            next.delete(id);
            return next;
          });
          void providers.refetch();
        },
      },
    );
  };

  const onSaved = (p: Provider, added = false) => {
    setEditing(null);
    setNotice(m.saved(p.name));
    void providers.refetch();
    // Its models are listed by a test: run one at once so the pickers fill.
    runTest(p.id, added ? p : undefined);
  };
  const onAdded = (p: Provider) => onSaved(p, true);

  const onDelete = (p: Provider) => {
    remove.mutate({ id: p.id }, { onSuccess: () => void providers.refetch() });
  };

  return (
    <section ref={sectionRef} className="settings-section providers" aria-labelledby="models-title" data-testid="settings-models">
      <h2 id="models-title">{m.title}</h2>
      <p className="help">{m.help}</p>
      {providers.error && <QueryError error={providers.error} onRetry={() => void providers.refetch()} />}
      {providers.data?.length === 0 && <p className="muted">{m.none}</p>}
      <ul className="provider-list">
        {providers.data?.map((p) =>
          editing?.kind === 'edit' && editing.provider.id === p.id ? (
            <li key={p.id} className="provider-item editing">
              <ProviderForm provider={p} onSaved={(saved) => onSaved(saved)} onCancel={() => setEditing(null)} />
            </li>
          ) : (
            <li key={p.id} className="provider-item" data-testid="provider-item" data-provider-id={p.id}>
              <div className="provider-head">
                <strong className="provider-name">{p.name}</strong>
                <span className="badge">{m.kinds[p.kind]}</span>
                <span className={p.hasKey ? 'badge ok' : 'badge'} data-testid="provider-key-badge">
                  {p.hasKey ? m.keyStored : m.noKey}
                </span>
                <span className="muted provider-count" data-testid="provider-model-count">
                  {p.models.length > 0 ? m.modelCount(p.models.length) : m.modelsUnknown}
                </span>
              </div>
              <code className="provider-url">{p.baseUrl}</code>
              <div className="form-actions provider-actions">
                <button type="button" data-testid="provider-test" aria-label={m.testLabel(p.name)} disabled={testing.has(p.id)} onClick={() => runTest(p.id)}>
                  {testing.has(p.id) ? m.testing : m.test}
                </button>
                <button type="button" data-testid="provider-edit" aria-label={m.editLabel(p.name)} onClick={() => setEditing({ kind: 'edit', provider: p })}>
                  {m.edit}
                </button>
                <ConfirmButton className="danger-button" data-testid="provider-delete" aria-label={m.deleteLabel(p.name)} question={m.confirmDelete(p.name)} confirmLabel={m.delete} onConfirm={() => onDelete(p)}>
                  {m.delete}
                </ConfirmButton>
              </div>
              {verdicts[p.id] && <Verdict verdict={verdicts[p.id]!} />}
            </li>
          ),
        )}
      </ul>
      {remove.error && (
        <FieldError role="alert">
          {remove.error.message}
        </FieldError>
      )}
      {notice && editing === null && (
        <p className="status-ok" role="status">
          {notice}
        </p>
      )}
      {editing?.kind === 'new' ? (
        <ProviderForm provider={null} onSaved={onAdded} onCancel={() => setEditing(null)} />
      ) : (
        <div className="form-actions">
          <button
            type="button"
            className="primary"
            data-testid="provider-add"
            onClick={() => {
              setNotice(null);
              setEditing({ kind: 'new' });
            }}
          >
            {m.add}
          </button>
        </div>
      )}
      <DetectedProviders onAdded={onAdded} />
      <ModelSetting providers={providers.data ?? []} field="defaultModel" id="default-model" label={m.defaultModel} help={m.defaultModelHelp} none={m.noDefault} />
      <ModelSetting
        providers={providers.data ?? []}
        field="documentSummaryModel"
        id="document-summary-model"
        label={m.summaryModel}
        help={m.summaryModelHelp}
        none={m.noSummaryModel}
      />
    </section>
  );
}

function Verdict({ verdict: v }: { verdict: ConnectionVerdict }) {
  const models = v.models ?? [];
  // The message may already say how long the answer took.
  const showLatency = v.latencyMs !== undefined && !v.message.includes(m.latency(v.latencyMs));
  return (
    <div className={v.ok ? 'verdict ok' : 'verdict error'} role={v.ok ? 'status' : 'alert'} data-testid="provider-verdict" data-ok={v.ok}>
      <p>
        <span className="verdict-mark" aria-hidden="true">
          {v.ok ? '✓' : '✕'}
        </span>{' '}
        <span className="visually-hidden">{v.ok ? m.verdictOk : m.verdictFailed}: </span>
        <strong>{v.message}</strong>
        {showLatency && <span className="muted"> · {m.latency(v.latencyMs!)}</span>}
      </p>
      {v.ok && models.length > 0 && (
        <p className="verdict-models">
          <span className="muted">{m.verdictModels(models.length)}</span> {models.slice(0, VERDICT_MODELS).join(', ')}
          {models.length > VERDICT_MODELS && <span className="muted"> {m.moreModels(models.length - VERDICT_MODELS)}</span>}
        </p>
      )}
    </div>
  );
}

function DetectedProviders({ onAdded }: { onAdded(p: Provider): void }) {
  const detect = useOp('providers.detect', {}, { staleTime: 0, refetchOnMount: 'always' });
  const add = useOpMutation('providers.save');
  const [adding, setAdding] = useState<string | null>(null);
  const onAdd = (d: DetectedProvider) => {
    setAdding(d.baseUrl);
    add.mutate(
      { provider: { name: d.name, kind: d.kind, baseUrl: d.baseUrl } },
      {
        onSuccess: (p) => {
          onAdded(p);
          void detect.refetch();
        },
        onSettled: () => setAdding(null),
      },
    );
  };
  return (
    <div className="detected" aria-labelledby="detected-title">
      <h3 id="detected-title">{m.detected}</h3>
      <p className="help">{m.detectedHelp}</p>
      {detect.isFetching && !detect.data && <p className="muted">{m.detecting}</p>}
      {detect.error && (
        <p className="muted">
          {m.unavailable} {detect.error.message}
        </p>
      )}
      {detect.data?.length === 0 && <p className="muted">{m.noneDetected}</p>}
      <ul className="detected-list">
        {detect.data?.map((d) => (
          <li key={d.baseUrl} className="detected-item" data-testid="provider-detected">
            <strong>{d.name}</strong> <code>{d.baseUrl}</code> <span className="muted">{m.modelCount(d.models.length)}</span>
            <button type="button" aria-label={m.addDetectedLabel(d.name)} disabled={adding !== null} onClick={() => onAdd(d)}>
              {adding === d.baseUrl ? m.adding : m.addDetected}
            </button>
          </li>
        ))}
      </ul>
      {add.error && (
        <FieldError role="alert">
          {add.error.message}
        </FieldError>
      )}
      <button type="button" className="link-button" disabled={detect.isFetching} onClick={() => void detect.refetch()}>
        {detect.isFetching ? m.detecting : m.lookAgain}
      </button>
    </div>
  );
}

/** A model Settings keep (`field`): chosen among the providers' models, saved as it is picked. */
function ModelSetting({ providers, field, id, label, help, none }: { providers: Provider[]; field: 'defaultModel' | 'documentSummaryModel'; id: string; label: string; help: string; none: string }) {
  const settings = useOp('settings.get', {});
  const save = useOpMutation('settings.set');
  const current = settings.data?.[field] ?? null;
  const groups = modelGroups(providers, current);
  return (
    <div className="default-model">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        data-testid={id}
        value={modelValue(current)}
        disabled={!settings.data || save.isPending}
        aria-describedby={`${id}-help`}
        onChange={(e) => save.mutate({ [field]: parseModelValue(e.target.value) }, { onSuccess: () => void settings.refetch() })}
      >
        <option value="">{none}</option>
        {groups.map((g) => (
          <optgroup key={g.providerId} label={g.providerName}>
            {g.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.missing ? m.defaultMissing(o.ref.model) : o.ref.model}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <p className="help" id={`${id}-help`}>
        {help}
      </p>
      {save.isSuccess && (
        <span className="status-ok" role="status" data-testid={`${id}-saved`}>
          {m.defaultSaved}
        </span>
      )}
      {save.error && (
        <FieldError role="alert">
          {save.error.message}
        </FieldError>
      )}
    </div>
  );
}
