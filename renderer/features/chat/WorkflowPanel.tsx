/**
 * The workflows of the workspace (`workflows/*.md`): each can run in the open conversation
 * ('workflows.run'); its progress comes from the 'workflow.progress' event, step by step,
 * and a running one can be cancelled. A file that cannot run shows why.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { WorkflowRun, WorkflowSummary } from '../../../shared/model/workflow';
import { FROM_DISK, useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { OutcomeList } from './DirectiveOutcomes';
import { formatDuration, latestRunByPath, mergeRun } from './format';
import { useEnsureConversation } from './use-conversation';

/** The runs this window has seen (started here or reported by the core), by run id. */
function useWorkflowRuns() {
  const { client } = useApi();
  const [runs, setRuns] = useState<ReadonlyMap<string, WorkflowRun>>(new Map());
  const merge = useCallback(
    (run: WorkflowRun) =>
      setRuns((prev) => {
        const next = mergeRun(prev.get(run.runId), run);
        if (next === prev.get(run.runId)) return prev;
        return new Map(prev).set(run.runId, next);
      }),
    [],
  );
  useEffect(() => client.on('workflow.progress', merge), [client, merge]);
  return { runs, merge };
}

/** The file name a workflow's test id uses: `workflow-run-daily.md`. */
const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

export function WorkflowPanel() {
  const list = useOp('workflows.list', {}, FROM_DISK);
  const conversationId = useUi((st) => st.conversationId);
  const { runs, merge } = useWorkflowRuns();
  // Runs of this conversation, and runs started outside any conversation.
  const latest = latestRunByPath([...runs.values()].filter((r) => !r.conversationId || r.conversationId === conversationId));

  return (
    <div className="workflow-panel" data-testid="workflow-panel">
      {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">{s.workflows.loading}</p>}
      {list.data && list.data.length === 0 && <p className="muted">{s.workflows.empty}</p>}
      <ul className="workflows">
        {list.data?.map((w) => <WorkflowItem key={w.path} workflow={w} run={latest.get(w.path)} onRun={merge} />)}
      </ul>
    </div>
  );
}

function WorkflowItem({ workflow: w, run, onRun }: { workflow: WorkflowSummary; run?: WorkflowRun; onRun: (run: WorkflowRun) => void }) {
  const { client } = useApi();
  const ensureConversation = useEnsureConversation();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const running = run?.status === 'running';

  const start = async () => {
    setStarting(true);
    setError(null);
    try {
      const conversationId = await ensureConversation();
      const r = await client.call('workflows.run', { path: w.path, conversationId });
      if (r.ok) onRun(r.value);
      else setError(r.error);
    } catch (e) {
      setError({ code: 'UNAVAILABLE', message: (e as Error).message });
    } finally {
      setStarting(false);
    }
  };

  return (
    <li className="workflow-item" data-testid="workflow-item">
      <div className="workflow-head">
        <div className="workflow-name">
          <strong>{w.title}</strong>
          <code className="muted">{w.path}</code>
          <span className="muted">{s.workflows.steps(w.steps.length)}</span>
        </div>
        <button
          type="button"
          className="primary"
          data-testid={`workflow-run-${fileName(w.path)}`}
          aria-label={s.workflows.runLabel(w.title)}
          disabled={w.error !== undefined || starting || running}
          onClick={() => void start()}
        >
          {starting || running ? s.workflows.running : s.workflows.run}
        </button>
      </div>
      {w.error !== undefined && (
        <FieldError data-testid="workflow-error">
          {s.workflows.cannotRun} {w.error}
        </FieldError>
      )}
      {error && (
        <FieldError role="alert">
          {s.workflows.runFailed} <code className="error-code">{error.code}</code> {error.message}
        </FieldError>
      )}
      {run && <RunProgress run={run} />}
    </li>
  );
}

const RUN_BADGE: Record<WorkflowRun['status'], string> = { running: 'badge', done: 'badge ok', error: 'badge danger', cancelled: 'badge' };
const STEP_BADGE: Record<WorkflowRun['steps'][number]['status'], string> = {
  pending: 'badge',
  running: 'badge',
  done: 'badge ok',
  error: 'badge danger',
  skipped: 'badge',
  cancelled: 'badge',
  'waiting-for-model': 'badge',
};

function RunProgress({ run }: { run: WorkflowRun }) {
  const { client } = useApi();
  const [cancelling, setCancelling] = useState(false);
  const running = run.status === 'running';
  const cancel = async () => {
    setCancelling(true);
    await client.call('workflows.cancel', { runId: run.runId }).catch(() => undefined);
    setCancelling(false);
  };
  return (
    <section className="workflow-progress" data-testid="workflow-progress" aria-label={s.workflows.progress(run.title)} aria-busy={running}>
      <div className="workflow-progress-head">
        <span className={RUN_BADGE[run.status]} role="status">
          {s.workflows.runStatus[run.status]}
        </span>
        {running && (
          <button type="button" data-testid="workflow-cancel" aria-label={s.workflows.cancelLabel(run.title)} disabled={cancelling} onClick={() => void cancel()}>
            {s.workflows.cancel}
          </button>
        )}
      </div>
      <ol className="workflow-steps">
        {run.steps.map((step, i) => (
          <li key={i} className="workflow-step" data-status={step.status}>
            <div className="workflow-step-head">
              <span className={STEP_BADGE[step.status]}>{s.workflows.stepStatus[step.status]}</span>
              <span className="workflow-step-title">{step.title}</span>
              {step.durationMs !== undefined && <span className="muted">{formatDuration(step.durationMs)}</span>}
            </div>
            {step.error && (
              <FieldError>
                <code className="error-code">{step.error.code}</code> {step.error.message}
              </FieldError>
            )}
            {step.outcomes.length > 0 && <OutcomeList outcomes={step.outcomes} />}
          </li>
        ))}
      </ol>
    </section>
  );
}
