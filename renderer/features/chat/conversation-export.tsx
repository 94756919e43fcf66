/**
 * A conversation as a file: the Export menu of a conversation row ('conversations.export',
 * Markdown or JSON, saved as a download), and Import conversation… ('conversations.import' of a
 * chosen or dropped JSON file, which becomes a new conversation and is opened). Files over
 * CONVERSATION_IMPORT_MAX_CHARS are refused here, before anything is sent.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useId, useRef, useState, type KeyboardEvent } from 'react';
import { CONVERSATION_IMPORT_MAX_CHARS, type Conversation } from '../../../shared/model/conversation';
import { callOrThrow } from '../../api/client';
import { Popover } from '../../components/Popover';
import { saveFile } from '../../components/save-file';
import { useApi } from '../../api/hooks';
import { chatStrings } from '../../i18n/chat-strings';
import { useUi } from '../../stores/ui';

const s = chatStrings.conversations;
const MAX_MIB = CONVERSATION_IMPORT_MAX_CHARS / (1024 * 1024);
const errorMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

const FORMATS = [
  { format: 'markdown', label: s.exportMarkdown, help: s.exportMarkdownHelp },
  { format: 'json', label: s.exportJson, help: s.exportJsonHelp },
] as const;

/** The Export button of a conversation row and its menu (arrow keys move, Escape closes). */
export function ExportMenu({ conversation: c, onError }: { conversation: Conversation; onError: (message: string | null) => void }) {
  const { client } = useApi();
  const menuId = useId();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  };

  const run = async (format: 'markdown' | 'json') => {
    close(true);
    setBusy(true);
    onError(null);
    try {
      const file = await callOrThrow(client, 'conversations.export', { id: c.id, format });
      saveFile(new Blob([file.text], { type: file.mimeType }), file.fileName);
    } catch (e) {
      onError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const onMenuKey = (e: KeyboardEvent) => {
    const items = itemRefs.current.filter((x): x is HTMLButtonElement => x !== null);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    // Escape (and a click elsewhere) is the Popover's.
    if (e.key === 'Tab') {
      close(false);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      e.stopPropagation();
      items[(at + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length]?.focus();
    }
  };

  return (
    <span className="choice-menu">
      <button
        ref={buttonRef}
        type="button"
        className="icon-button"
        aria-label={s.exportLabel(c.title)}
        title={busy ? s.exporting : s.export}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-testid="conversation-export"
        disabled={busy}
        onClick={() => setOpen((o) => !o)}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
          <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
        </svg>
      </button>
      {open && (
        <Popover as="span" anchorRef={buttonRef} onClose={() => setOpen(false)} initialFocus='[role="menuitem"]' id={menuId} role="menu" aria-label={s.exportLabel(c.title)} className="choice-menu-list" style={{ left: 'auto', right: 0, minWidth: '15rem' }} onKeyDown={onMenuKey}>
          {FORMATS.map((f, i) => (
            <button
              key={f.format}
              ref={(el) => {
                itemRefs.current[i] = el;
              }}
              type="button"
              role="menuitem"
              className="choice-item"
              style={{ border: 'none', background: undefined, textAlign: 'left', font: 'inherit', color: 'inherit' }}
              data-testid={`conversation-export-${f.format}`}
              onClick={() => void run(f.format)}
            >
              <span className="choice-name">{f.label}</span>
              <span className="choice-help">{f.help}</span>
            </button>
          ))}
        </Popover>
      )}
    </span>
  );
}

export interface ImportState {
  busy: string | null;
  error: string | null;
  done: string | null;
  /** The conversation the last import made. */
  conversationId: string | null;
}

/** Reads a chosen or dropped file and imports it; the new conversation is opened. */
export function useConversationImport() {
  const { client } = useApi();
  const qc = useQueryClient();
  const [state, setState] = useState<ImportState>({ busy: null, error: null, done: null, conversationId: null });

  const importFile = async (file: File) => {
    if (state.busy !== null) return;
    // A character is at least a byte: a file this large is too long whatever it holds.
    if (file.size > CONVERSATION_IMPORT_MAX_CHARS * 4) {
      setState({ busy: null, error: s.importTooLarge(file.name, MAX_MIB), done: null, conversationId: null });
      return;
    }
    setState({ busy: file.name, error: null, done: null, conversationId: null });
    try {
      let text: string;
      try {
        text = await file.text();
      } catch (e) {
        throw new Error(s.importReadFailed(errorMessage(e)), { cause: e });
      }
      if (text.length > CONVERSATION_IMPORT_MAX_CHARS) {
        setState({ busy: null, error: s.importTooLarge(file.name, MAX_MIB), done: null, conversationId: null });
        return;
      }
      const { conversation, messages, attachmentsLeftOut } = await callOrThrow(client, 'conversations.import', { text });
      void qc.invalidateQueries({ queryKey: ['conversations.list'] }, { cancelRefetch: false });
      useUi.getState().selectConversation(conversation.id);
      setState({ busy: null, error: null, done: s.imported(conversation.title, messages, attachmentsLeftOut, Boolean(conversation.systemPrompt || conversation.params)), conversationId: conversation.id });
    } catch (e) {
      setState({ busy: null, error: s.importFailed(errorMessage(e)), done: null, conversationId: null });
    }
  };

  const dismiss = useCallback(() => setState({ busy: null, error: null, done: null, conversationId: null }), []);
  return { ...state, importFile, dismiss };
}

/** The Import conversation… button: opens the file chooser (JSON files offered first). */
export function ImportButton({ busy, onFile }: { busy: boolean; onFile: (file: File) => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="icon-button" title={s.importLabel} aria-label={s.importLabel} data-testid="conversation-import" aria-disabled={busy || undefined} onClick={() => !busy && inputRef.current?.click()}>
        <svg viewBox="0 0 24 24" aria-hidden="true" className="chat-icon">
          <path d="M12 15V4M7 9l5-5 5 5M5 20h14" />
        </svg>
      </button>
      <input
        ref={inputRef}
        type="file"
        accept=".json,application/json"
        tabIndex={-1}
        aria-hidden="true"
        className="visually-hidden"
        data-testid="conversation-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          // Cleared so that choosing the same file again imports it again.
          e.target.value = '';
          if (file) onFile(file);
        }}
      />
    </>
  );
}
