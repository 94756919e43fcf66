/**
 * Orchestration in the chat (seed 003): a delegation's card folds out the task's own timeline
 * (nested: a task that delegates shows its own delegations inside), approvals asked inside a
 * task are answered there, and an agent's question to the user gets an answer box in place.
 */
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import type { ToolCard as ToolCardData } from '../../../shared/model/conversation';
import { useApi } from '../../api/hooks';
import { chatStrings } from '../../i18n/chat-strings';
import { Markdown } from './Markdown';
import { awaitingApproval, foldTimeline } from './timeline';
import { ToolCard } from './ToolCard';
import { useConversationDetail } from './use-conversation';

const s = chatStrings.tasks;

/**
 * A delegation's task: its timeline, folded out on demand (open while it runs). While it
 * runs its rows are followed even when folded: a call inside waiting for the user's approval
 * opens it and says so.
 */
export function TaskTimeline({ card }: { card: ToolCardData }) {
  const task = card.task!;
  const running = card.status === 'running';
  const [open, setOpen] = useState(running);
  const live = useConversationDetail(running ? task.id : null);
  const waiting = running && !!live.data && awaitingApproval(foldTimeline(live.data.messages)).length > 0;
  const shown = open || waiting;
  return (
    <details className="task-timeline" open={shown} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="task-timeline">
      <summary>
        {s.timeline(task.agent, task.number)}
        {running && !waiting && <span className="muted"> — {s.working}</span>}
        {waiting && (
          <span className="badge waiting" role="status" data-testid="task-waiting">
            {s.waitingInside}
          </span>
        )}
      </summary>
      {shown && <TaskRows taskId={task.id} />}
    </details>
  );
}

export function TaskRows({ taskId }: { taskId: string }) {
  const detail = useConversationDetail(taskId);
  if (detail.isPending) return <p className="muted">{s.loading}</p>;
  if (detail.error) return <p className="field-error">{detail.error.message}</p>;
  const items = foldTimeline(detail.data.messages);
  return (
    <ol className="task-rows" aria-label={s.rowsLabel}>
      {items.map((item) => {
        if (item.kind === 'usage') return null;
        if (item.kind === 'tool') {
          return (
            <li key={item.key}>
              <ToolCard card={item.card} conversationId={taskId} />
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
        <p className="field-error" role="alert" id={`${card.task!.id}-answer-error`}>
          {error.message}
        </p>
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
