/**
 * Settings → Memory sources (docs/memory.md, "Sources"): the FileSources (folders the `file`
 * tool works in, under glob rules) and folder watchers (streams of new and changed files),
 * with their state; add, edit, remove, pause and resume them.
 */
import { useState, type FormEvent } from 'react';
import type { SourceStatus } from '../../../shared/model/memory-sources';
import { useOp, useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { formStrings } from '../../i18n/form-strings';
import { memorySourcesStrings as s } from '../../i18n/memory-sources-strings';
import { emptyDraft, fromDraft, toDraft, type SourceDraft } from './memory-sources-draft';

export function MemorySourcesSection() {
  const list = useOp('memory.sources.list', {});
  const configs = useOp('memory.sources.configs', {});
  const save = useOpMutation('memory.sources.save');
  const remove = useOpMutation('memory.sources.remove');
  const pause = useOpMutation('memory.sources.pause');
  const resume = useOpMutation('memory.sources.resume');
  const [draft, setDraft] = useState<SourceDraft>(emptyDraft);
  const [editing, setEditing] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [savedId, setSavedId] = useState<string | null>(null);

  const refetch = () => {
    void list.refetch();
    void configs.refetch();
  };
  const set = (patch: Partial<SourceDraft>) => setDraft({ ...draft, ...patch });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setSavedId(null);
    const r = fromDraft(draft);
    if (!r.ok) {
      setFormError(r.badLine ? s.badRule(r.badLine.line, r.badLine.text) : s.noRules);
      return;
    }
    setFormError(null);
    save.mutate(r.config, {
      onSuccess: (st) => {
        setSavedId(st.id);
        setDraft(emptyDraft());
        setEditing(null);
        refetch();
      },
    });
  };
  const error = formError ?? (save.error ?? remove.error ?? pause.error ?? resume.error)?.message;

  return (
    <section className="memory-sources" aria-labelledby="memory-sources-title" data-testid="memory-sources">
      <h2 id="memory-sources-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      {list.error && <QueryError error={list.error} onRetry={refetch} />}
      {list.data?.length === 0 && <p className="muted">{s.none}</p>}
      <ul className="secret-list" data-testid="memory-source-list">
        {list.data?.map((src) => (
          <li key={src.id} data-testid={`memory-source-${src.id}`}>
            <code>{src.id}</code> <span className="muted">{s.kinds[src.kind]}</span> <code>{src.folder}</code> <span data-testid={`memory-source-state-${src.id}`}>{s.states[src.state]}</span>
            {src.error && <FieldError as="span"> {src.error}</FieldError>}
            <span className="muted"> {details(src)}</span>
            {src.type === 'stream' && (
              <button
                type="button"
                onClick={() => (src.state === 'paused' ? resume : pause).mutate({ id: src.id }, { onSuccess: refetch })}
              >
                {src.state === 'paused' ? s.resume : s.pause}
              </button>
            )}
            <button
              type="button"
              aria-label={s.edit(src.id)}
              onClick={() => {
                const c = configs.data?.find((x) => x.id === src.id);
                if (!c) return;
                setDraft(toDraft(c));
                setEditing(src.id);
              }}
            >
              ✎
            </button>
            <ConfirmButton aria-label={s.remove(src.id)} question={s.confirmRemove(src.id)} confirmLabel={formStrings.confirm.remove} onConfirm={() => remove.mutate({ id: src.id }, { onSuccess: refetch })}>
              ✕
            </ConfirmButton>
          </li>
        ))}
      </ul>
      <form className="secret-form" onSubmit={onSubmit} aria-label={s.add}>
        <label htmlFor="memory-source-kind">{s.kind}</label>
        <select id="memory-source-kind" data-testid="memory-source-kind" value={draft.kind} disabled={editing !== null} onChange={(e) => set({ kind: e.target.value as SourceDraft['kind'] })}>
          <option value="files">{s.kinds.files}</option>
          <option value="watch">{s.kinds.watch}</option>
        </select>
        <label htmlFor="memory-source-id">{s.id}</label>
        <input id="memory-source-id" data-testid="memory-source-id" value={draft.id} readOnly={editing !== null} aria-describedby="memory-source-id-help" onChange={(e) => set({ id: e.target.value })} autoComplete="off" required />
        <p className="help" id="memory-source-id-help">
          {s.idHelp}
        </p>
        <label htmlFor="memory-source-folder">{s.folder}</label>
        <input id="memory-source-folder" data-testid="memory-source-folder" value={draft.folder} placeholder={s.folderPlaceholder} onChange={(e) => set({ folder: e.target.value })} autoComplete="off" required />
        {draft.kind === 'files' ? (
          <>
            <label htmlFor="memory-source-rules">{s.rules}</label>
            <textarea id="memory-source-rules" data-testid="memory-source-rules" rows={4} value={draft.rules} aria-describedby="memory-source-rules-help" onChange={(e) => set({ rules: e.target.value })} />
            <p className="help" id="memory-source-rules-help">
              {s.rulesHelp}
            </p>
          </>
        ) : (
          <>
            <label htmlFor="memory-source-include">{s.include}</label>
            <textarea id="memory-source-include" data-testid="memory-source-include" rows={3} value={draft.include} placeholder="**/*.md" aria-describedby="memory-source-include-help" onChange={(e) => set({ include: e.target.value })} />
            <p className="help" id="memory-source-include-help">
              {s.includeHelp}
            </p>
          </>
        )}
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="memory-source-save" disabled={save.isPending}>
            {save.isPending ? s.saving : editing ? s.save : s.add}
          </button>
          {editing && (
            <button
              type="button"
              onClick={() => {
                setEditing(null);
                setDraft(emptyDraft());
              }}
            >
              {s.cancel}
            </button>
          )}
          {savedId && (
            <span className="status-ok" role="status" data-testid="memory-source-saved">
              {s.saved(savedId)}
            </span>
          )}
        </div>
        {error && (
          <FieldError role="alert" data-testid="memory-source-error">
            {error}
          </FieldError>
        )}
      </form>
    </section>
  );
}

function details(src: SourceStatus): string {
  if (src.type === 'block') return `${(src.rules ?? []).map((r) => `${r.pattern} → ${r.permission}`).join(', ')} · ${s.loaded(src.loaded?.length ?? 0)}`;
  return `${(src.include ?? []).join(', ')} · ${s.notifications(src.notifications ?? 0)}`;
}
