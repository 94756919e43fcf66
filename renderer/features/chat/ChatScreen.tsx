/**
 * The Chat screen: conversations (left), the open conversation's timeline, its model and
 * tools, and the composer with its `+` palette (middle), workflows and context sections
 * (right). Agent turns are followed here (streamed text, Stop) for every conversation.
 * The open conversation is useUi().conversationId: the newest is opened on first load,
 * and one is created when a message or a tool run needs it.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { useOp, useOpMutation } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { FieldError } from '../../components/Field';
import { FirstRunChecklist } from '../onboarding/FirstRunChecklist';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import './chat.css';
import { Composer, type ComposerHandle } from './Composer';
import { newestFirst } from './conversation-order';
import { ConversationList } from './ConversationList';
import { MessageList } from './MessageList';
import { ModelPicker, NoModelNotice } from './ModelPicker';
import { SidePanel } from './SidePanel';
import { useSideCollapsed } from './side-state';
import { ToolSelectionControl } from './ToolSelectionControl';
import { ExtractionControl } from './ExtractionControl';
import { useAgentStream } from './use-agent-stream';
import { useConversationDetail } from './use-conversation';

export function ChatScreen() {
  const conversationId = useUi((st) => st.conversationId);
  const selectConversation = useUi((st) => st.selectConversation);
  const all = useOp('conversations.list', {});
  const create = useOpMutation('conversations.create');
  const qc = useQueryClient();
  const composer = useRef<ComposerHandle>(null);
  const screenRef = useRef<HTMLElement>(null);
  const stream = useAgentStream();
  const [sideCollapsed, setSideCollapsed] = useSideCollapsed();

  // First load: open the newest conversation, if there is one.
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current || !all.data) return;
    opened.current = true;
    if (useUi.getState().conversationId === null) {
      const newest = newestFirst(all.data)[0];
      if (newest) selectConversation(newest.id);
    }
  }, [all.data, selectConversation]);

  // The open conversation was deleted elsewhere: open the newest one left.
  const detail = useConversationDetail(conversationId);
  const gone = detail.error?.info.code === 'NOT_FOUND';
  useEffect(() => {
    if (!gone || !all.data) return;
    const next = newestFirst(all.data).find((c) => c.id !== conversationId);
    selectConversation(next?.id ?? null);
  }, [gone, all.data, conversationId, selectConversation]);

  const { mutate: createMutate } = create;
  const creating = useRef(false);
  const createConversation = useCallback(() => {
    if (creating.current) return;
    creating.current = true;
    createMutate(
      {},
      {
        onSuccess: (c) => {
          selectConversation(c.id);
          // The 'created' event reads the list again already: never a second read.
          void qc.invalidateQueries({ queryKey: ['conversations.list'] }, { cancelRefetch: false });
          composer.current?.focus();
        },
        onSettled: () => {
          creating.current = false;
        },
      },
    );
  }, [createMutate, qc, selectConversation]);

  // Ctrl/Cmd+N and Ctrl/Cmd+K while the chat screen (or nothing) has the focus.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.defaultPrevented) return;
      const key = e.key.toLowerCase();
      if (key !== 'n' && key !== 'k') return;
      const focus = document.activeElement;
      const inScreen = !focus || focus === document.body || focus.id === 'main' || screenRef.current?.contains(focus);
      if (!inScreen) return;
      e.preventDefault();
      if (key === 'n') createConversation();
      else composer.current?.openPalette();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [createConversation]);

  const none = all.data !== undefined && all.data.length === 0;
  return (
    <section ref={screenRef} className="screen wide chat-screen" aria-labelledby="chat-title" data-testid="screen-chat">
      <header className="screen-header chat-header">
        <h1 id="chat-title">{s.title}</h1>
        <p className="help">{s.shortcuts}</p>
      </header>
      <div className={sideCollapsed ? 'chat-layout side-collapsed' : 'chat-layout'}>
        <ConversationList onCreate={createConversation} creating={create.isPending} />
        <div className="chat-main">
          {create.error && (
            <FieldError role="alert">
              {create.error.message}
            </FieldError>
          )}
          {conversationId && !gone ? (
            <MessageList conversationId={conversationId} stream={stream} />
          ) : (
            <div className="message-list">
              {none ? (
                <>
                  <EmptyState title={s.conversations.emptyTitle} testId="chat-empty">
                    {s.conversations.emptyBody}
                  </EmptyState>
                  <FirstRunChecklist onOpenPalette={() => composer.current?.openPalette()} />
                </>
              ) : (
                all.data && <EmptyState title={s.messages.noConversationTitle}>{s.conversations.emptyBody}</EmptyState>
              )}
            </div>
          )}
          <div className="chat-controls" role="group" aria-label={s.model.controls}>
            <ModelPicker conversation={gone ? undefined : detail.data?.conversation} />
            <ToolSelectionControl conversation={gone ? undefined : detail.data?.conversation} />
            <ExtractionControl conversation={gone ? undefined : detail.data?.conversation} />
          </div>
          <NoModelNotice />
          <Composer
            ref={composer}
            running={conversationId !== null && stream.state.running[conversationId] !== undefined}
            onStop={() => (conversationId ? stream.stop(conversationId) : Promise.resolve(null))}
          />
        </div>
        <SidePanel collapsed={sideCollapsed} onCollapse={setSideCollapsed} />
      </div>
    </section>
  );
}
