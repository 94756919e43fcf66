/**
 * The left column: conversations, newest first, searchable by title; each can be opened,
 * renamed in place (Enter saves, Escape cancels) and deleted after a confirmation.
 */
import { keepPreviousData, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Conversation } from '../../../shared/model/conversation';
import { TITLE_MAX } from '../../../shared/model/conversation';
import { useOp, useOpMutation } from '../../api/hooks';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { newestFirst } from './conversation-order';
import { useDebounced } from '../../hooks/use-debounced';

export interface ConversationListProps {
  onCreate: () => void;
  creating: boolean;
}

export function ConversationList({ onCreate, creating }: ConversationListProps) {
  const { conversationId, selectConversation } = useUi();
  const [query, setQuery] = useState('');
  const q = useDebounced(query.trim(), 150);
  const list = useOp('conversations.list', q ? { q } : {}, { placeholderData: keepPreviousData });
  const items = newestFirst(list.data ?? []);
  const listRef = useRef<HTMLUListElement>(null);

  // Arrow keys move between the conversations' open buttons.
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const buttons = [...(listRef.current?.querySelectorAll<HTMLButtonElement>('.conversation-open') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at === -1) return;
    e.preventDefault();
    buttons[(at + (e.key === 'ArrowDown' ? 1 : -1) + buttons.length) % buttons.length]?.focus();
  };

  return (
    <nav className="conversation-list" aria-labelledby="conversations-title" data-testid="conversation-list">
      <div className="conversation-list-head">
        <h2 id="conversations-title">{s.conversations.title}</h2>
        <button type="button" className="primary" data-testid="conversation-new" aria-label={s.conversations.new} title={s.conversations.newShortcut} aria-keyshortcuts="Control+N Meta+N" disabled={creating} onClick={onCreate}>
          {s.conversations.newShort}
        </button>
      </div>
      <input
        type="search"
        aria-label={s.conversations.search}
        placeholder={s.conversations.searchPlaceholder}
        value={query}
        data-testid="conversation-search"
        onChange={(e) => setQuery(e.target.value)}
      />
      {list.error && <QueryError error={list.error} onRetry={() => void list.refetch()} />}
      {list.isPending && <p className="muted">{s.conversations.loading}</p>}
      {list.data && items.length === 0 && q !== '' && <p className="muted">{s.conversations.noMatches(q)}</p>}
      <ul ref={listRef} className="conversations" onKeyDown={onKeyDown}>
        {items.map((c) => (
          <ConversationItem key={c.id} conversation={c} current={c.id === conversationId} onSelect={() => selectConversation(c.id)} next={items.find((o) => o.id !== c.id)?.id ?? null} />
        ))}
      </ul>
    </nav>
  );
}

function ConversationItem({ conversation: c, current, onSelect, next }: { conversation: Conversation; current: boolean; onSelect: () => void; next: string | null }) {
  const [editing, setEditing] = useState(false);
  const rename = useOpMutation('conversations.rename');
  const remove = useOpMutation('conversations.delete');
  const qc = useQueryClient();
  const openRef = useRef<HTMLButtonElement>(null);
  /** After Enter or Escape in the title box, focus goes back to the conversation. */
  const refocus = useRef(false);
  useEffect(() => {
    if (!editing && refocus.current) {
      refocus.current = false;
      openRef.current?.focus();
    }
  }, [editing]);
  // The 'conversations.changed' event reads the list again already: never a second read.
  const refresh = () => void qc.invalidateQueries({ queryKey: ['conversations.list'] }, { cancelRefetch: false });

  const save = (title: string, byKey: boolean) => {
    refocus.current = byKey;
    setEditing(false);
    const trimmed = title.trim();
    if (trimmed === '' || trimmed === c.title) return;
    rename.mutate({ id: c.id, title: trimmed }, { onSettled: refresh });
  };

  const del = () => {
    if (!window.confirm(s.conversations.confirmDelete(c.title))) return;
    remove.mutate(
      { id: c.id },
      {
        onSuccess: () => {
          const ui = useUi.getState();
          if (ui.conversationId === c.id) ui.selectConversation(next);
          qc.removeQueries({ queryKey: ['conversations.get', { id: c.id }] });
        },
        onSettled: refresh,
      },
    );
  };

  const error = rename.error ?? remove.error;
  return (
    <li className={current ? 'conversation-item current' : 'conversation-item'} data-testid="conversation-item" data-conversation-id={c.id}>
      {editing ? (
        <RenameInput
          title={c.title}
          onSave={save}
          onCancel={() => {
            refocus.current = true;
            setEditing(false);
          }}
        />
      ) : (
        <button ref={openRef} type="button" className="conversation-open" aria-current={current || undefined} onClick={onSelect}>
          <span className="conversation-title">{c.title}</span>
          <span className="conversation-meta muted">{s.conversations.messages(c.messageCount)}</span>
        </button>
      )}
      {!editing && (
        <span className="conversation-actions" role="group" aria-label={s.conversations.actionsFor(c.title)}>
          <button type="button" className="icon-button" aria-label={s.conversations.renameLabel(c.title)} title={s.conversations.rename} data-testid="conversation-rename" onClick={() => setEditing(true)}>
            <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
              <path d="M4 20h4L19 9l-4-4L4 16zM14 6l4 4" />
            </svg>
          </button>
          <button type="button" className="icon-button" aria-label={s.conversations.deleteLabel(c.title)} title={s.conversations.delete} data-testid="conversation-delete" disabled={remove.isPending} onClick={del}>
            <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
              <path d="M5 7h14M10 7V5h4v2M7 7l1 13h8l1-13" />
            </svg>
          </button>
        </span>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error.message}
        </p>
      )}
    </li>
  );
}

function RenameInput({ title, onSave, onCancel }: { title: string; onSave: (title: string, byKey: boolean) => void; onCancel: () => void }) {
  const [value, setValue] = useState(title);
  const done = useRef(false);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);
  const finish = (how: 'enter' | 'escape' | 'blur') => {
    if (done.current) return;
    done.current = true;
    if (how === 'escape') onCancel();
    else onSave(value, how === 'enter');
  };
  return (
    <input
      ref={ref}
      type="text"
      className="conversation-rename"
      aria-label={s.conversations.renameInput}
      title={s.conversations.renameHelp}
      maxLength={TITLE_MAX}
      value={value}
      data-testid="conversation-rename-input"
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          finish('enter');
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          finish('escape');
        }
      }}
      onBlur={() => finish('blur')}
    />
  );
}
