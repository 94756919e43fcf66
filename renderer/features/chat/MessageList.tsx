/**
 * The open conversation's timeline: what the user typed (directives coloured, their
 * outcomes folded), the model's replies (Markdown; streaming text live until the row is
 * stored), the app's notices and errors, tool cards (a model's call and its result folded
 * into one), and what each turn cost. Stays scrolled to the newest row unless the user
 * has scrolled up. A message edited and sent again keeps its versions: ‹ i/n › beside it
 * shows another one (and what followed it), the one the model is given from then on.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { BranchPoint, Message } from '../../../shared/model/conversation';
import { useOp, useOpMutation } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { branchStrings, chatStrings as s } from '../../i18n/chat-strings';
import { HighlightedText } from './DirectiveHighlight';
import { DirectiveOutcomes } from './DirectiveOutcomes';
import { Markdown } from './Markdown';
import { CopyButton, EditMessage, RegenerateButton } from './MessageActions';
import { pendingOf } from './stream-state';
import { awaitingApproval, foldTimeline, type TurnUsage } from './timeline';
import { ToolCard } from './ToolCard';
import type { AgentStream } from './use-agent-stream';
import { useConversationDetail } from './use-conversation';
import { MessageAttachments } from './AttachmentViews';
import { useUi } from '../../stores/ui';
import { SaveAsEvalButton } from '../tools/evals/SaveAsEval';

/** Within this many pixels of the bottom, new messages keep the view at the bottom. */
const STICK_PX = 80;

export function MessageList({ conversationId, stream }: { conversationId: string; stream: AgentStream }) {
  const detail = useConversationDetail(conversationId);
  const messages = detail.data?.messages;
  const boxRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const items = useMemo(() => (messages ? foldTimeline(messages) : []), [messages]);
  const storedIds = useMemo(() => new Set(messages?.map((m) => m.id) ?? []), [messages]);
  const pending = pendingOf(stream.state, conversationId, storedIds);
  const running = stream.state.running[conversationId] !== undefined;
  // A call waiting for approval here, or in a task below at any depth.
  const inTasks = useOp('tasks.approvals', { conversationId }, { enabled: running });
  const waiting = useMemo(() => awaitingApproval(items).length > 0, [items]) || (running && (inTasks.data?.approvals.length ?? 0) > 0);
  const last = items.at(-1);
  const lastKey = last ? `${last.key}:${last.kind === 'tool' ? last.card.status : ''}` : '';
  const pendingChars = pending.reduce((n, p) => n + p.text.length, 0);
  const branches = detail.data?.branches;
  const branchOf = useMemo(() => new Map((branches ?? []).map((b, ordinal) => [b.messageId, { ...b, ordinal }])), [branches]);
  // After a switch the message shown is another row: the focus goes to the same control on it.
  const [announce, setAnnounce] = useState('');
  const refocus = useRef<{ ordinal: number; dir: 'previous' | 'next' } | null>(null);
  const { refetch } = detail;
  const onSwitched = useCallback(
    (ordinal: number, dir: 'previous' | 'next', index: number, count: number) => {
      refocus.current = { ordinal, dir };
      setAnnounce(branchStrings.announce(index + 1, count));
      void refetch();
    },
    [refetch],
  );
  useEffect(() => {
    const want = refocus.current;
    const group = want && boxRef.current?.querySelector(`[data-branch-ordinal="${want.ordinal}"]`);
    if (!want || !group) return;
    const button = group.querySelector<HTMLButtonElement>(`[data-testid="branch-${want.dir}"]:not(:disabled)`) ?? group.querySelector<HTMLButtonElement>('button:not(:disabled)');
    button?.focus();
    refocus.current = null;
  }, [branches]);

  const { settle, resume, seed } = stream;
  useEffect(() => {
    if (detail.dataUpdatedAt) settle(conversationId, storedIds, detail.dataUpdatedAt);
  }, [settle, conversationId, storedIds, detail.dataUpdatedAt]);
  // A turn that was already running when this view opened (a reload): show it, with Stop.
  const runningTurnId = detail.data?.runningTurnId;
  const streaming = detail.data?.streaming;
  useEffect(() => {
    if (runningTurnId) resume(conversationId, runningTurnId);
  }, [resume, conversationId, runningTurnId]);
  // ...and the text its model had streamed before this view opened.
  useEffect(() => {
    if (streaming && streaming.turnId === runningTurnId) seed(conversationId, streaming);
  }, [seed, conversationId, runningTurnId, streaming]);

  useLayoutEffect(() => {
    stick.current = true;
  }, [conversationId]);
  useLayoutEffect(() => {
    const box = boxRef.current;
    if (box && stick.current) box.scrollTop = box.scrollHeight;
  }, [items.length, lastKey, conversationId, pendingChars, running]);
  // A search's match: once its row is drawn, it is brought into view and marked for a moment.
  const messageFocus = useUi((u) => u.messageFocus);
  const isFetching = detail.isFetching;
  const clearMessageFocus = useUi((u) => u.clearMessageFocus);
  useLayoutEffect(() => {
    const box = boxRef.current;
    if (!messageFocus || !box || !messages) return;
    const row = messages.find((m) => m.id === messageFocus);
    // Not among the rows read yet: a newer read may bring it (the conversation changed while it was not shown).
    if (!row && isFetching) return;
    clearMessageFocus();
    // Not shown (another version of an edited message, or a row drawn as nothing): nothing to bring into view.
    const el = !row
      ? null
      : row.tool
        ? box.querySelector<HTMLElement>(`[data-invocation-id="${CSS.escape(row.tool.invocationId)}"]`)
        : box.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(messageFocus)}"]`);
    if (!el) return;
    stick.current = false;
    el.scrollIntoView({ block: 'center' });
    el.animate?.([{ boxShadow: '0 0 0 3px var(--accent)' }, { boxShadow: '0 0 0 3px transparent' }], { duration: 2400, easing: 'ease-in' });
  }, [messageFocus, messages, isFetching, clearMessageFocus]);

  return (
    <div
      ref={boxRef}
      className="message-list"
      role="log"
      aria-label={s.messages.region}
      aria-busy={detail.isFetching || running}
      data-testid="message-list"
      tabIndex={0}
      onScroll={(e) => {
        const b = e.currentTarget;
        stick.current = b.scrollHeight - b.scrollTop - b.clientHeight < STICK_PX;
      }}
    >
      <p className="visually-hidden" role="status" data-testid="branch-announce">
        {announce}
      </p>
      {detail.error && <QueryError error={detail.error} onRetry={() => void detail.refetch()} />}
      {detail.isPending && <p className="muted">{s.messages.loading}</p>}
      {messages && messages.length === 0 && pending.length === 0 && (
        <EmptyState title={s.messages.emptyTitle} testId="messages-empty">
          {s.messages.emptyBody}
        </EmptyState>
      )}
      {items.map((it) =>
        it.kind === 'tool' ? (
          <ToolCard key={it.key} card={it.card} conversationId={conversationId} placement="root" messageId={it.message.id} />
        ) : it.kind === 'usage' ? (
          <UsageLine key={it.key} usage={it.usage} />
        ) : (
          <MessageItem key={it.key} message={it.message} running={running} branch={branchOf.get(it.message.id)} onSwitched={onSwitched} />
        ),
      )}
      {pending.map((p) => (
        <article key={p.messageId} className="message assistant pending" data-testid="message-streaming" aria-label={s.messages.assistant} aria-live="off">
          <header className="message-head">
            <strong>{s.messages.assistant}</strong>
            <span className="muted">{p.endedAt === undefined ? s.messages.streaming : ''}</span>
          </header>
          <Markdown text={p.text} />
        </article>
      ))}
      {running && pending.length === 0 && (
        <p className="muted turn-running" role="status" data-testid="turn-running">
          {waiting ? s.turn.waiting : <><span className="spinner" aria-hidden="true" /> {s.turn.running}</>}
        </p>
      )}
    </div>
  );
}

function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function UsageLine({ usage }: { usage: TurnUsage }) {
  return (
    <p className="turn-usage muted" data-testid="turn-usage" aria-label={s.usage.label} title={s.usage.label}>
      {s.usage.text(usage.inputTokens, usage.outputTokens, usage.steps)}
    </p>
  );
}

type Switched = (ordinal: number, dir: 'previous' | 'next', index: number, count: number) => void;

/** ‹ i/n ›: which version of an edited message is shown; the buttons show the one before or after. */
function BranchSwitcher({ point, disabled, onSwitched, conversationId }: { point: BranchPoint & { ordinal: number }; disabled: boolean; onSwitched: Switched; conversationId: string }) {
  const switchBranch = useOpMutation('conversations.switchBranch');
  const go = (dir: 'previous' | 'next') => {
    const branch = point.index + (dir === 'next' ? 1 : -1);
    switchBranch.mutate({ id: conversationId, messageId: point.messageId, branch }, { onSuccess: () => onSwitched(point.ordinal, dir, branch, point.count) });
  };
  const busy = disabled || switchBranch.isPending;
  return (
    <span className="message-branches" role="group" aria-label={branchStrings.group} data-testid="message-branches" data-branch-ordinal={point.ordinal}>
      <button type="button" className="message-action" data-testid="branch-previous" aria-label={branchStrings.previous} title={branchStrings.previous} disabled={busy || point.index === 0} onClick={() => go('previous')}>
        ‹
      </button>
      <span className="muted" aria-hidden="true" data-testid="branch-position">
        {branchStrings.position(point.index + 1, point.count)}
      </span>
      <span className="visually-hidden">{branchStrings.announce(point.index + 1, point.count)}</span>
      <button type="button" className="message-action" data-testid="branch-next" aria-label={branchStrings.next} title={branchStrings.next} disabled={busy || point.index === point.count - 1} onClick={() => go('next')}>
        ›
      </button>
      {switchBranch.error && (
        <FieldError as="span" className="message-action-error" role="alert" data-testid="message-action-error">
          {switchBranch.error.message}
        </FieldError>
      )}
    </span>
  );
}

function MessageItem({ message: m, running, branch, onSwitched }: { message: Message; running: boolean; branch?: BranchPoint & { ordinal: number }; onSwitched: Switched }) {
  const [editing, setEditing] = useState(false);
  if (m.role === 'tool' && m.tool) return <ToolCard card={m.tool} />;
  if (m.role === 'notice') {
    if (m.error) {
      return (
        <div className="message notice error" role="alert" data-testid="chat-error" data-message-id={m.id}>
          <p className="message-text">
            <code className="error-code">{m.error.code}</code> {m.text.includes(m.error.message) ? m.text : m.error.message}
          </p>
          {m.text && !m.text.includes(m.error.message) && <p className="message-text">{m.text}</p>}
          {m.outcomes && <DirectiveOutcomes outcomes={m.outcomes} />}
          {m.turnId && <SaveAsEvalButton conversationId={m.conversationId} messageId={m.id} about={m.error.message} />}
        </div>
      );
    }
    return (
      <div className="message notice" data-testid="message-notice" data-message-id={m.id}>
        <p className="message-text">{m.text}</p>
        {m.outcomes && <DirectiveOutcomes outcomes={m.outcomes} />}
      </div>
    );
  }
  // A step that only called tools stored no text: its cards say what it did.
  if (m.role === 'assistant' && m.text.trim() === '' && !m.outcomes) return null;
  const who = m.role === 'user' ? s.messages.you : m.role === 'assistant' ? s.messages.assistant : s.messages.notice;
  return (
    <article className={`message ${m.role}`} data-testid={`message-${m.role}`} data-message-id={m.id} aria-label={who}>
      <header className="message-head">
        <strong>{who}</strong>
        {m.role === 'assistant' && m.model && <span className="muted message-model">{m.model.model}</span>}
        <time className="muted" dateTime={m.createdAt}>
          {time(m.createdAt)}
        </time>
        {branch && !editing && <BranchSwitcher point={branch} disabled={running} onSwitched={onSwitched} conversationId={m.conversationId} />}
        {!editing && (
          <span className="message-actions" role="group" aria-label={s.messages.actions}>
            <CopyButton text={m.text} />
            {m.role === 'user' && (
              <button type="button" className="message-action" data-testid="message-edit" title={s.actions.editLabel} disabled={running} onClick={() => setEditing(true)}>
                {s.actions.edit}
              </button>
            )}
            {m.role === 'assistant' && <RegenerateButton message={m} disabled={running} />}
            <SaveAsEvalButton conversationId={m.conversationId} messageId={m.id} disabled={running} about={m.text} />
          </span>
        )}
      </header>
      {editing ? <EditMessage message={m} onDone={() => setEditing(false)} /> : m.role === 'user' ? <HighlightedText text={m.text} /> : <Markdown text={m.text} />}
      {m.role === 'user' && <MessageAttachments conversationId={m.conversationId} messageId={m.id} items={m.attachments} />}
      {m.outcomes && <DirectiveOutcomes outcomes={m.outcomes} />}
    </article>
  );
}
