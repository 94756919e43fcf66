/**
 * The left column: conversations, newest first, searchable by title and messages' text (a
 * conversation found by a message shows where); each can be opened, renamed in place (Enter
 * saves, Escape cancels), exported (Markdown or JSON) and deleted after a confirmation. Import…
 * (or a JSON file dropped on the column) reads an exported conversation back as a new one.
 */
import { keepPreviousData, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { ConversationListItem } from '../../../shared/model/conversation';
import { TITLE_MAX } from '../../../shared/model/conversation';
import { useOp, useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { QueryError } from '../../components/QueryError';
import { chatStrings as s } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';
import { newestFirst } from './conversation-order';
import { useDebounced } from '../../hooks/use-debounced';
import { ExportMenu, ImportButton, useConversationImport } from './conversation-export';

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
  const importer = useConversationImport();
  const [dropping, setDropping] = useState(false);
  const hasFiles = (e: DragEvent) => [...e.dataTransfer.types].includes('Files');
  // What an import said goes once another conversation is opened.
  const { conversationId: importedId, dismiss } = importer;
  useEffect(() => {
    if (importedId !== null && conversationId !== importedId) dismiss();
  }, [conversationId, importedId, dismiss]);

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
    <nav
      className="conversation-list"
      aria-labelledby="conversations-title"
      data-testid="conversation-list"
      data-dropping={dropping || undefined}
      style={dropping ? { outline: '2px dashed var(--accent)', outlineOffset: '2px' } : undefined}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDropping(false);
        const file = e.dataTransfer.files[0];
        if (file) void importer.importFile(file);
      }}
    >
      <div className="conversation-list-head">
        <h2 id="conversations-title">{s.conversations.title}</h2>
        <span style={{ display: 'flex', gap: '0.35rem' }}>
          <ImportButton busy={importer.busy !== null} onFile={(f) => void importer.importFile(f)} />
          <button type="button" className="primary" data-testid="conversation-new" aria-label={s.conversations.new} title={s.conversations.newShortcut} aria-keyshortcuts="Control+N Meta+N" disabled={creating} onClick={onCreate}>
          {s.conversations.newShort}
          </button>
        </span>
      </div>
      {importer.busy !== null && (
        <p className="muted" role="status" data-testid="conversation-import-progress">
          {s.conversations.importing(importer.busy)}
        </p>
      )}
      {importer.done && (
        <p className="status-ok" role="status" data-testid="conversation-imported">
          {importer.done}
        </p>
      )}
      {importer.error && (
        <FieldError role="alert" data-testid="conversation-import-error">
          {importer.error}
        </FieldError>
      )}
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
          <ConversationItem key={c.id} query={q} conversation={c} current={c.id === conversationId} onSelect={() => selectConversation(c.id, c.match?.messageId)} next={items.find((o) => o.id !== c.id)?.id ?? null} />
        ))}
      </ul>
    </nav>
  );
}

/** The snippet with the searched words marked (any case). */
function Highlighted({ text, words }: { text: string; words: string }) {
  const at = words ? text.toLowerCase().indexOf(words.toLowerCase()) : -1;
  if (at === -1) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + words.length)}</mark>
      {text.slice(at + words.length)}
    </>
  );
}

function ConversationItem({ conversation: c, query, current, onSelect, next }: { conversation: ConversationListItem; query: string; current: boolean; onSelect: () => void; next: string | null }) {
  const [editing, setEditing] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
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

  const error = rename.error ?? remove.error ?? (exportError ? { message: exportError } : null);
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
          {c.match ? (
            <span
              className="conversation-meta muted"
              style={{ display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', overflow: 'hidden', overflowWrap: 'anywhere' }}
              data-testid="conversation-match"
              data-message-id={c.match.messageId} title={s.conversations.matchLabel(s.conversations.matchIn[c.match.role], c.match.snippet)}>
              {s.conversations.matchIn[c.match.role]}: <Highlighted text={c.match.snippet} words={query} />
            </span>
          ) : (
            <span className="conversation-meta muted">{s.conversations.messages(c.messageCount)}</span>
          )}
        </button>
      )}
      {!editing && (
        <span className="conversation-actions" role="group" aria-label={s.conversations.actionsFor(c.title)}>
          <button type="button" className="icon-button" aria-label={s.conversations.renameLabel(c.title)} title={s.conversations.rename} data-testid="conversation-rename" onClick={() => setEditing(true)}>
            <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
              <path d="M4 20h4L19 9l-4-4L4 16zM14 6l4 4" />
            </svg>
          </button>
          <ExportMenu conversation={c} onError={setExportError} />
          <ConfirmButton
            className="icon-button"
            aria-label={s.conversations.deleteLabel(c.title)}
            title={s.conversations.delete}
            data-testid="conversation-delete"
            disabled={remove.isPending}
            question={s.conversations.confirmDelete(c.title)}
            confirmLabel={s.conversations.delete}
            onConfirm={del}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
              <path d="M5 7h14M10 7V5h4v2M7 7l1 13h8l1-13" />
            </svg>
          </ConfirmButton>
        </span>
      )}
      {error && (
        <FieldError role="alert">
          {error.message}
        </FieldError>
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
