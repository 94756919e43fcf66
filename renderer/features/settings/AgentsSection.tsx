/**
 * Settings → Agents: the agent profiles (name, display name, description, built-in badge, an
 * enabled switch, what is wrong with each), and the form that creates, edits, views (a
 * built-in) or duplicates one. An 'agents.changed' event refreshes the list.
 */
import { useEffect, useRef } from 'react';
import { useOp, useOpMutation, usePagedOp } from '../../api/hooks';
import type { AgentProfileView } from '../../../shared/model/agent-profile';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { useUnsavedChanges } from '../../components/UnsavedChanges';
import { QueryError } from '../../components/QueryError';
import { Switch } from '../../components/Switch';
import { agentsStrings as s } from '../../i18n/agents-strings';
import { AgentForm } from './AgentForm';
import { draftFromProfile, duplicateDraft, emptyAgentDraft, sameDraft } from './agent-form';
import { useAgentsUi, type AgentEditing } from './agents-store';
import './agents.css';

const labelOf = (v: AgentProfileView) => v.profile.displayName ?? v.profile.name;

export function AgentsSection() {
  const list = useOp('agents.list', {});
  const providers = useOp('providers.list', {});
  const bundles = usePagedOp('bundles.list', { pageSize: 100 });
  const setEnabled = useOpMutation('agents.setEnabled');
  const remove = useOpMutation('agents.delete');
  const { editing, seq, notice, start, setDraft, close, focusAfter, focused } = useAgentsUi();
  const views = list.data ?? [];
  const sectionRef = useRef<HTMLElement>(null);

  // A closed form gives the focus back: to its agent's first button (once listed again), else to
  // "New agent"; unless the user has put the focus elsewhere meanwhile.
  useEffect(() => {
    if (!focusAfter || editing) return;
    const root = sectionRef.current;
    const active = document.activeElement;
    if (active && active !== document.body && !root?.contains(active)) return focused();
    const target = focusAfter.agent === null ? root?.querySelector<HTMLElement>('[data-testid="agent-add"]') : root?.querySelector<HTMLElement>(`[data-agent="${CSS.escape(focusAfter.agent)}"] .agent-actions button`);
    if (target) {
      target.focus();
      focused();
    }
  }, [focusAfter, editing, list.data, focused]);

  /** Leaving a form with typed changes asks first. */
  const unsaved = useUnsavedChanges(!!editing && editing.kind !== 'view' && !sameDraft(editing.draft, editing.original), { detail: s.confirmDiscard });
  const open = (next: AgentEditing) => unsaved.guard(() => start(next));
  const duplicate = (v: AgentProfileView) => {
    const draft = duplicateDraft(v.profile, new Set(views.map((x) => x.profile.name)), s.copyOf);
    open({ kind: 'new', draft, original: draft });
  };
  const onDelete = (v: AgentProfileView) => {
    remove.mutate(
      { name: v.profile.name },
      {
        onSuccess: () => {
          if (editing && editing.kind !== 'new' && editing.name === v.profile.name) close(s.deleted(labelOf(v)), { agent: null });
          else useAgentsUi.setState({ notice: s.deleted(labelOf(v)), focusAfter: { agent: null } });
          void list.refetch();
        },
      },
    );
  };
  const onSaved = (v: AgentProfileView) => {
    close(s.saved(labelOf(v)), { agent: v.profile.name });
    void list.refetch();
  };

  const toolsOf = (v: AgentProfileView) => {
    const t = v.profile.tools;
    if (!t) return s.noTools;
    const all = bundles.data?.pages.flatMap((p) => p.items) ?? [];
    return s.toolsOf(t.bundleIds.map((id) => all.find((b) => b.id === id)?.displayName ?? id), t.toolIds.length);
  };
  const modelName = (v: AgentProfileView) => {
    const m = v.profile.model;
    if (!m) return s.runsOnDelegating;
    const p = providers.data?.find((x) => x.id === m.providerId);
    return s.runsOn(`${p?.name ?? m.providerId} · ${m.model}`);
  };

  const form = (e: AgentEditing, v?: AgentProfileView) =>
    e.kind === 'view' ? (
      v && <AgentForm key={seq} draft={draftFromProfile(v.profile)} editing={v.profile.name} readOnly views={views} onChange={() => undefined} onSaved={() => undefined} onCancel={() => close()} onDuplicate={() => duplicate(v)} />
    ) : (
      <AgentForm key={seq} draft={e.draft} editing={e.kind === 'edit' ? e.name : null} views={views} onChange={setDraft} onSaved={onSaved} onCancel={() => unsaved.guard(() => close())} />
    );

  return (
    <section ref={sectionRef} className="settings-section agents" aria-labelledby="agents-title" data-testid="settings-agents">
      <h2 id="agents-title">{s.title}</h2>
      <p className="help">{s.help}</p>
      {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">{s.loading}</p>}
      {list.data?.length === 0 && <p className="muted">{s.none}</p>}
      <ul className="agent-list">
        {views.map((v) => {
          const name = v.profile.name;
          if (editing && editing.kind !== 'new' && editing.name === name)
            return (
              <li key={name} className="agent-item editing" data-testid="agent-item" data-agent={name}>
                {form(editing, v)}
              </li>
            );
          return (
            <li key={name} className={v.enabled ? 'agent-item' : 'agent-item off'} data-testid="agent-item" data-agent={name}>
              <div className="agent-head">
                <strong className="agent-name">{labelOf(v)}</strong>
                <code className="muted">{name}</code>
                {v.builtIn && <span className="badge">{s.builtIn}</span>}
                {!v.enabled && (
                  <span className="badge" data-testid="agent-disabled-badge">
                    {s.disabled}
                  </span>
                )}
                <span className="agent-switch">
                  <Switch checked={v.enabled} label={s.enable(labelOf(v))} testId="agent-enabled" disabled={setEnabled.isPending} onChange={(on) => setEnabled.mutate({ name, enabled: on }, { onSuccess: () => void list.refetch() })} />
                </span>
              </div>
              <p className="agent-description">{v.profile.description}</p>
              <p className="agent-meta muted">
                {v.profile.delegatesTo.length > 0 ? s.delegates(v.profile.delegatesTo.join(', ')) : s.noDelegates}
                {v.profile.canAskMaster && <> · {s.asksMaster}</>} · {modelName(v)} · <span data-testid="agent-tools">{toolsOf(v)}</span> · {s.steps(v.profile.maxSteps)}
              </p>
              {v.warnings.length > 0 && (
                <ul className="agent-warnings" aria-label={s.warningsLabel(labelOf(v))}>
                  {v.warnings.map((w) => (
                    <li key={w} data-testid="agent-warning">
                      <span aria-hidden="true">⚠ </span>
                      {w}
                    </li>
                  ))}
                </ul>
              )}
              <div className="form-actions agent-actions">
                {v.builtIn ? (
                  <button type="button" data-testid="agent-view" aria-label={s.viewLabel(labelOf(v))} onClick={() => open({ kind: 'view', name })}>
                    {s.view}
                  </button>
                ) : (
                  <button
                    type="button"
                    data-testid="agent-edit"
                    aria-label={s.editLabel(labelOf(v))}
                    onClick={() => {
                      const draft = draftFromProfile(v.profile);
                      open({ kind: 'edit', name, draft, original: draft });
                    }}
                  >
                    {s.edit}
                  </button>
                )}
                <button type="button" data-testid="agent-duplicate" aria-label={s.duplicateLabel(labelOf(v))} onClick={() => duplicate(v)}>
                  {s.duplicate}
                </button>
                {!v.builtIn && (
                  <ConfirmButton className="danger-button" data-testid="agent-delete" aria-label={s.deleteLabel(labelOf(v))} question={s.confirmDelete(labelOf(v))} confirmLabel={s.delete} onConfirm={() => onDelete(v)}>
                    {s.delete}
                  </ConfirmButton>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      {(setEnabled.error ?? remove.error) && (
        <FieldError role="alert">
          {setEnabled.error ? s.toggleFailed : ''} {(setEnabled.error ?? remove.error)!.message}
        </FieldError>
      )}
      {notice && !editing && (
        <p className="status-ok" role="status" data-testid="agent-notice">
          {notice}
        </p>
      )}
      {editing?.kind === 'new' || (editing?.kind === 'edit' && list.data && !views.some((v) => v.profile.name === editing.name)) ? (
        // A new profile; or one being edited that was deleted meanwhile (saving it makes it again).
        form(editing)
      ) : (
        <div className="form-actions">
          <button
            type="button"
            className="primary"
            data-testid="agent-add"
            onClick={() => {
              const draft = emptyAgentDraft();
              open({ kind: 'new', draft, original: draft });
            }}
          >
            {s.add}
          </button>
        </div>
      )}
      {unsaved.prompt}
    </section>
  );
}
