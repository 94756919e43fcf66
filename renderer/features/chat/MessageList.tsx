/**
 * The open conversation's messages: what the user typed (directives coloured, their
 * outcomes folded), the model's replies, the app's notices and tool cards. Stays scrolled
 * to the newest message unless the user has scrolled up.
 */
import { useLayoutEffect, useRef } from 'react';
import type { Message } from '../../../shared/model/conversation';
import { EmptyState } from '../../components/EmptyState';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { HighlightedText } from './DirectiveHighlight';
import { DirectiveOutcomes } from './DirectiveOutcomes';
import { ToolCard } from './ToolCard';
import { useConversationDetail } from './use-conversation';

/** Within this many pixels of the bottom, new messages keep the view at the bottom. */
const STICK_PX = 80;

export function MessageList({ conversationId }: { conversationId: string }) {
  const detail = useConversationDetail(conversationId);
  const messages = detail.data?.messages;
  const boxRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const last = messages?.at(-1);

  useLayoutEffect(() => {
    stick.current = true;
  }, [conversationId]);
  useLayoutEffect(() => {
    const box = boxRef.current;
    if (box && stick.current) box.scrollTop = box.scrollHeight;
  }, [messages?.length, last?.id, last?.tool?.status, conversationId]);

  return (
    <div
      ref={boxRef}
      className="message-list"
      role="log"
      aria-label={s.messages.region}
      aria-busy={detail.isFetching}
      data-testid="message-list"
      tabIndex={0}
      onScroll={(e) => {
        const b = e.currentTarget;
        stick.current = b.scrollHeight - b.scrollTop - b.clientHeight < STICK_PX;
      }}
    >
      {detail.error && <QueryError error={detail.error} onRetry={() => void detail.refetch()} />}
      {detail.isPending && <p className="muted">{s.messages.loading}</p>}
      {messages && messages.length === 0 && (
        <EmptyState title={s.messages.emptyTitle} testId="messages-empty">
          {s.messages.emptyBody}
        </EmptyState>
      )}
      {messages?.map((m) => <MessageItem key={m.id} message={m} />)}
    </div>
  );
}

function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function MessageItem({ message: m }: { message: Message }) {
  if (m.role === 'tool' && m.tool) return <ToolCard card={m.tool} />;
  if (m.role === 'notice') {
    return (
      <div className="message notice" data-testid="message-notice">
        <p className="message-text">{m.text}</p>
        {m.outcomes && <DirectiveOutcomes outcomes={m.outcomes} />}
      </div>
    );
  }
  const who = m.role === 'user' ? s.messages.you : m.role === 'assistant' ? s.messages.assistant : s.messages.notice;
  return (
    <article className={`message ${m.role}`} data-testid={`message-${m.role}`} aria-label={who}>
      <header className="message-head">
        <strong>{who}</strong>
        <time className="muted" dateTime={m.createdAt}>
          {time(m.createdAt)}
        </time>
      </header>
      {m.role === 'user' ? <HighlightedText text={m.text} /> : <div className="message-text">{m.text}</div>}
      {m.outcomes && <DirectiveOutcomes outcomes={m.outcomes} />}
    </article>
  );
}
