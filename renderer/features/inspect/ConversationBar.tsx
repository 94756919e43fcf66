/**
 * Inspect's conversation bar: which conversation the tabs show (by its title), and a choice of
 * another without leaving Inspect. The one open in Chat by default.
 */
import { useId } from 'react';
import { useOp } from '../../api/hooks';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useUi } from '../../stores/ui';
import { bufferOwner, inspectedConversation, useInspect } from './inspect-store';

/** The conversation the tabs show (see inspectedConversation). */
export function useInspectedConversation(): string | null {
  const open = useUi((st) => st.conversationId);
  const picked = useInspect((st) => st.picked);
  return inspectedConversation(picked, open);
}

/** Whose buffers the Buffers tab lists (see bufferOwner). */
export function useBufferOwner(): string | null {
  const open = useUi((st) => st.conversationId);
  const target = useUi((st) => st.inspectTarget);
  const picked = useInspect((st) => st.picked);
  return bufferOwner(target, picked, open);
}

/** Every conversation's title by id (as the Chat lists them). */
export function useConversationTitles(): Map<string, string> {
  const list = useOp('conversations.list', { limit: 1000 });
  return new Map((list.data ?? []).map((c) => [c.id, c.title || s.conversation.untitled]));
}

/** A conversation's title; its id while the list is loading or when it is not a conversation. */
export function useConversationTitle(id: string): string {
  return useConversationTitles().get(id) ?? id;
}

export function ConversationBar({ shown }: { shown: string | null }) {
  const ids = useId();
  const open = useUi((st) => st.conversationId);
  const target = useUi((st) => st.inspectTarget);
  const pick = useInspect((st) => st.pickConversation);
  const list = useOp('conversations.list', { limit: 1000 });
  const conversations = list.data ?? [];
  const known = shown === null || conversations.some((c) => c.id === shown);
  return (
    <div className="inspect-conversation">
      <label htmlFor={`${ids}-c`}>{s.conversation.label}</label>
      <select
        id={`${ids}-c`}
        data-testid="inspect-conversation"
        value={shown ?? ''}
        title={shown ?? undefined}
        aria-describedby={`${ids}-help`}
        onChange={(e) => {
          if (e.target.value) pick(e.target.value, open, target);
        }}
      >
        {shown === null && <option value="">{s.conversation.none}</option>}
        {!known && shown && <option value={shown}>{s.conversation.other(shown)}</option>}
        {conversations.map((c) => (
          <option key={c.id} value={c.id} title={c.id}>
            {c.id === open && c.id !== shown ? s.conversation.openInChat(c.title || s.conversation.untitled) : c.title || s.conversation.untitled}
          </option>
        ))}
      </select>
      <span className="help" id={`${ids}-help`}>
        {s.conversation.help}
      </span>
    </div>
  );
}
