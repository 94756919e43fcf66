/**
 * A bundle's eval cases (or only those that expect one tool): each with what it expects, and
 * Edit, Run… and Delete. "New eval case" and Edit open the editor in the list's place.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { EvalCase } from '../../../../shared/model/evals';
import { useOp, useOpMutation } from '../../../api/hooks';
import { FieldError } from '../../../components/Field';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { QueryError } from '../../../components/QueryError';
import { evalsStrings } from '../../../i18n/evals-strings';
import { refLabel } from './eval-report';

const s = evalsStrings.cases;

export interface EvalCaseListProps {
  bundleId: string;
  bundleSlug: string;
  /** Only the cases that expect this tool. */
  tool?: string;
  onShowAll: () => void;
  onNew: () => void;
  onEdit: (c: EvalCase) => void;
  onRun: (only?: string[]) => void;
  /** A sentence to announce (a case saved or deleted). */
  notice?: string;
}

export function EvalCaseList({ bundleId, bundleSlug, tool, onShowAll, onNew, onEdit, onRun, notice }: EvalCaseListProps) {
  const qc = useQueryClient();
  const cases = useOp('evals.list', { bundleId, ...(tool ? { tool } : {}) }, { staleTime: 0, refetchOnMount: 'always' });
  const remove = useOpMutation('evals.delete');
  const [deleted, setDeleted] = useState<string | undefined>();
  const newRef = useRef<HTMLButtonElement>(null);
  const list = cases.data ?? [];

  const del = (c: EvalCase) =>
    remove.mutate(
      { bundleId, id: c.id },
      {
        onSuccess: () => setDeleted(s.deleted(c.name)),
        onSettled: () => {
          void qc.invalidateQueries({ queryKey: ['evals.list'] });
          // The row and its button are gone: the focus stays in the list's toolbar.
          newRef.current?.focus();
        },
      },
    );

  return (
    <div className="eval-cases" data-testid="eval-cases">
      <div className="eval-toolbar">
        <button ref={newRef} type="button" className="primary" data-testid="eval-new" onClick={onNew}>
          {s.new}
        </button>
        <button type="button" data-testid="eval-run-cases" disabled={list.length === 0} onClick={() => onRun(tool ? list.map((c) => c.id) : undefined)}>
          {s.runAll}
        </button>
        <span className="status-ok" role="status">
          {deleted ?? notice}
        </span>
      </div>
      {tool && (
        <p className="muted" data-testid="eval-tool-filter">
          {s.onlyTool(refLabel(tool, bundleSlug))}{' '}
          <button type="button" className="link-button" onClick={onShowAll}>
            {s.showAll}
          </button>
        </p>
      )}
      {cases.isPending && <p className="muted">{s.loading}</p>}
      {cases.error && <QueryError error={cases.error} onRetry={() => void cases.refetch()} />}
      {cases.data && list.length === 0 && <p className="muted" data-testid="eval-cases-empty">{s.empty}</p>}
      <ul className="eval-case-list">
        {list.map((c) => (
          <li key={c.id} className="eval-case-row" data-testid="eval-case-row" data-case={c.name} data-case-id={c.id}>
            <div className="eval-case-main">
              <strong>{c.name}</strong>
              <span className="muted eval-case-prompt">{c.prompt.length > 140 ? `${c.prompt.slice(0, 140)}…` : c.prompt}</span>
              <span className="eval-case-tags">
                <span className="tag">{c.expect.kind === 'none' ? s.expectsNone : s.expectsTools(c.expect.tools.map((t) => refLabel(t.tool, bundleSlug)))}</span>
                {c.answer.length > 0 && <span className="tag">{s.answerChecks(c.answer.length)}</span>}
              </span>
            </div>
            <div className="eval-case-actions">
              <button type="button" data-testid="eval-case-edit" aria-label={s.editLabel(c.name)} onClick={() => onEdit(c)}>
                {s.edit}
              </button>
              <button type="button" data-testid="eval-case-run" aria-label={s.runLabel(c.name)} onClick={() => onRun([c.id])}>
                {s.run}
              </button>
              <ConfirmButton
                data-testid="eval-case-delete"
                aria-label={s.deleteLabel(c.name)}
                pending={remove.isPending}
                question={s.confirmDelete(c.name)}
                confirmLabel={s.delete}
                onConfirm={() => del(c)}
              >
                {s.delete}
              </ConfirmButton>
            </div>
          </li>
        ))}
      </ul>
      {remove.error && (
        <FieldError role="alert">
          {remove.error.message}
        </FieldError>
      )}
    </div>
  );
}
