/**
 * Orchestration in the chat (docs/design/orchestration.md): a delegation's card folds out the
 * task's own timeline (nested: a task that delegates shows its own delegations inside). A call
 * waiting for the user's approval anywhere below a conversation's delegation, however deep, is
 * answered on that delegation's card, labelled with its task path ("analyst → writer"); the
 * nested timeline says so in its place. An agent's question to the user gets an answer box in
 * place.
 */
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { ToolCard as ToolCardData } from '../../../shared/model/conversation';
import { useApi, useOp } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { chatStrings } from '../../i18n/chat-strings';
import { Markdown } from './Markdown';
import { foldTimeline } from './timeline';
import { ToolCard } from './ToolCard';
import { useConversationDetail } from './use-conversation';

const s = chatStrings.tasks;

/**
 * A delegation's task: its timeline, folded out on demand (open while it runs). While it runs,
 * a call waiting for the user's approval in it or in a task below it is said on its summary.
 * In the chat (`inChat`) those calls are answered on the conversation's delegation card
 * (TaskApprovals), and the rows say so in place; elsewhere (Inspect) the timeline opens and
 * they are answered in place.
 */
export function TaskTimeline({ card, inChat = false }: { card: ToolCardData; inChat?: boolean }) {
  const task = card.task!;
  const running = card.status === 'running';
  const [open, setOpen] = useState(running);
  const waiting = useWaitingApprovals(task.id, running).length > 0;
  const shown = open || (waiting && !inChat);
  return (
    <details className="task-timeline" open={shown} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="task-timeline">
      <summary>
        {s.timeline(task.agent, task.number)}
        {running && !waiting && <span className="muted"> — {s.working}</span>}
        {waiting && ' '}
        {waiting && (
          <span className="badge waiting" role="status" data-testid="task-waiting">
            {s.waitingInside}
          </span>
        )}
      </summary>
      {shown && <TaskRows taskId={task.id} inChat={inChat} />}
    </details>
  );
}

/** The calls waiting for the user in a task and the tasks below it (read while the task runs). */
function useWaitingApprovals(taskId: string, running: boolean) {
  const q = useOp('tasks.approvals', { conversationId: taskId }, { enabled: running });
  return running ? (q.data?.approvals ?? []) : [];
}

/**
 * On a conversation's delegation card: every call waiting for the user's approval (or a memory
 * consent) in the task and in the tasks below it, at any depth, each labelled with its task
 * path and answered here.
 */
export function TaskApprovals({ card }: { card: ToolCardData }) {
  const approvals = useWaitingApprovals(card.task!.id, card.status === 'running');
  if (approvals.length === 0) return null;
  return (
    <section className="task-approvals" aria-label={s.approvalsLabel} data-testid="task-approvals">
      {approvals.map((a) => (
        <div key={a.card.invocationId} className="task-approval" data-testid="task-approval">
          <p className="task-approval-path" data-testid="task-approval-path">
            <span className="badge waiting">{s.askedIn}</span> {a.path.join(' → ')}
            {a.taskNumber !== undefined && <span className="muted"> ({s.taskNumber(a.taskNumber)})</span>}
          </p>
          <ToolCard card={a.card} conversationId={a.conversationId} />
        </div>
      ))}
    </section>
  );
}

export function TaskRows({ taskId, inChat = false }: { taskId: string; inChat?: boolean }) {
  const detail = useConversationDetail(taskId);
  if (detail.isPending) return <p className="muted">{s.loading}</p>;
  if (detail.error) return <FieldError>{detail.error.message}</FieldError>;
  const items = foldTimeline(detail.data.messages);
  return (
    <ol className="task-rows" aria-label={s.rowsLabel}>
      {items.map((item) => {
        if (item.kind === 'usage') return null;
        if (item.kind === 'tool') {
          return (
            <li key={item.key}>
              <ToolCard card={item.card} conversationId={taskId} placement={inChat ? 'in-task' : undefined} />
            </li>
          );
        }
        const m = item.message;
        if (m.role === 'assistant' && !m.text.trim()) return null;
        return (
          <li key={item.key} className={`task-row task-row-${m.role}`}>
            <span className="muted task-row-who">{s.who[m.role]}</span>
            {m.role === 'assistant' ? <Markdown text={m.text} /> : <p className="task-row-text">{m.text}</p>}
          </li>
        );
      })}
    </ol>
  );
}

/** An agent's question to the user: the question, its documents, an answer box (Ctrl+Enter sends). */
export function QuestionAnswer({ card }: { card: ToolCardData }) {
  const { client } = useApi();
  const [answer, setAnswer] = useState('');
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [sending, setSending] = useState(false);
  const args = (card.args ?? {}) as { question?: string; documents?: string[] };
  const send = async () => {
    if (!answer.trim()) {
      setError({ code: 'VALIDATION_FAILED', message: s.answerRequired });
      return;
    }
    setSending(true);
    setError(null);
    const r = await client.call('tasks.answer', { questionId: card.task!.id, answer });
    setSending(false);
    if (!r.ok) setError(r.error);
    else if (!r.value.accepted) setError({ code: 'CONFLICT', message: s.noLongerWaiting });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void send();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void send();
    }
  };
  return (
    <form className="question-answer" onSubmit={onSubmit} data-testid="question-answer">
      <p className="question-text">{args.question}</p>
      {args.documents?.length ? (
        <p className="muted small">
          {s.documents}: {args.documents.join(', ')}
        </p>
      ) : null}
      <label className="field">
        <span>{s.answerLabel}</span>
        <textarea
          rows={2}
          value={answer}
          onChange={(e) => setAnswer(e.target.value)}
          onKeyDown={onKeyDown}
          data-testid="question-answer-input"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${card.task!.id}-answer-error` : undefined}
        />
      </label>
      {error && (
        <FieldError role="alert" id={`${card.task!.id}-answer-error`}>
          {error.message}
        </FieldError>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={sending} data-testid="question-answer-send">
          {s.answer}
        </button>
        <span className="muted small">{s.answerHint}</span>
      </div>
    </form>
  );
}
