/**
 * The composer: a textarea over a highlight layer (directives coloured as typed, errors
 * listed below; Send waits until there are none). Enter sends ('chat.send'), Shift+Enter
 * is a new line. A `+` at the start or after a blank (or Ctrl/Cmd+K) opens the palette; it
 * stays open across blanks, so a need can be typed as a sentence (palette-trigger.ts), and
 * closes at a line break: ↑ ↓ Enter pick a tool, Esc closes; after a run the `+query` leaves
 * the text. Attach (or a pasted or dropped file) adds images and text files to the message
 * (./attachments.ts), shown in a tray under the field until it is sent.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { parseDirectives } from '../../../shared/directives/parser';
import type { DirectiveError } from '../../../shared/directives/types';
import type { ErrorInfo } from '../../../shared/errors';
import type { ToolView } from '../../../shared/model/tool';
import { useApi } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { attachmentStrings, chatStrings as s } from '../../i18n/chat-strings';
import { HighlightLayer } from './DirectiveHighlight';
import { findPaletteTrigger, insertTrigger, locateTrigger, removeTrigger, type PaletteTrigger } from './palette-trigger';
import { optionId, PaletteList } from './PaletteList';
import { nextActive } from './palette-rows';
import { useRerun } from './rerun-store';
import { PaletteRunForm } from './PaletteRunForm';
import { addMessages, useEnsureConversation } from './use-conversation';
import { usePaletteSearch } from './use-palette-search';
import { readFiles, type PendingAttachment } from './attachments';
import { AttachmentTray } from './AttachmentViews';

export interface ComposerHandle {
  focus(): void;
  openPalette(): void;
}

interface Picked {
  tool: ToolView;
  trigger: PaletteTrigger | null;
  /** "Edit and run again": the earlier run's arguments. */
  args?: unknown;
}

export interface ComposerProps {
  ref?: Ref<ComposerHandle>;
  /** A model's turn runs in the open conversation: Stop (and Escape) stop it. */
  running?: boolean;
  onStop?(): Promise<ErrorInfo | null>;
}

export function Composer({ ref, running = false, onStop }: ComposerProps) {
  const { client } = useApi();
  const qc = useQueryClient();
  const ensureConversation = useEnsureConversation();
  const ids = useId();
  const listId = `${ids}-palette`;
  const areaRef = useRef<HTMLTextAreaElement>(null);
  const mirrorRef = useRef<HTMLDivElement>(null);
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  /** A caret to restore after the text is changed by code (the `+query` removed or added). */
  const pendingCaret = useRef<number | null>(null);

  const parsed = useMemo(() => parseDirectives(text), [text]);
  const trigger = findPaletteTrigger(text, caret);
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const [picked, setPicked] = useState<Picked | null>(null);
  // A dismissed `+` stays closed until it is gone.
  if (trigger === null && dismissedAt !== null) setDismissedAt(null);
  const listOpen = trigger !== null && trigger.start !== dismissedAt && picked === null;
  const search = usePaletteSearch(trigger?.query ?? '', listOpen);
  const [active, setActive] = useState(0);
  const [activeFor, setActiveFor] = useState<string | null>(null);
  // A new query starts at the top of its list.
  if (listOpen && activeFor !== trigger.query) {
    setActiveFor(trigger.query);
    setActive(0);
  }
  /** Enter before the list caught up with the query: pick once the fresh answer is in. */
  const [pickWhenFresh, setPickWhenFresh] = useState(false);

  const [sending, setSending] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<ErrorInfo | null>(null);
  if (!running && stopping) setStopping(false);
  const stop = async () => {
    if (!onStop || stopping) return;
    setStopping(true);
    setStopError(null);
    const err = await onStop();
    if (err) {
      setStopError(err);
      setStopping(false);
    }
  };
  const [sendError, setSendError] = useState<ErrorInfo | null>(null);
  const canSend = text.trim() !== '' && parsed.errors.length === 0 && !sending;
  const [attachments, setAttachments] = useState<PendingAttachment[]>([]);
  const [attachErrors, setAttachErrors] = useState<string[]>([]);
  const [dropping, setDropping] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const attach = async (files: readonly File[]) => {
    if (files.length === 0) return;
    const { added, errors } = await readFiles(files, attachments);
    setAttachments((old) => [...old, ...added]);
    setAttachErrors(errors);
    setSendError(null);
  };

  useLayoutEffect(() => {
    const at = pendingCaret.current;
    if (at === null || !areaRef.current) return;
    pendingCaret.current = null;
    areaRef.current.focus();
    areaRef.current.setSelectionRange(at, at);
    setCaret(at);
  }, [text]);

  const replaceText = (next: string, at: number) => {
    pendingCaret.current = at;
    setText(next);
    if (next === text) {
      areaRef.current?.setSelectionRange(at, at);
      setCaret(at);
    }
  };

  const syncScroll = () => {
    if (mirrorRef.current && areaRef.current) mirrorRef.current.scrollTop = areaRef.current.scrollTop;
  };

  const pick = useCallback((tool: ToolView) => {
    setPickWhenFresh(false);
    setPicked({ tool, trigger: findPaletteTrigger(areaRef.current?.value ?? '', areaRef.current?.selectionStart ?? 0) });
  }, []);

  const freshTop = listOpen && !search.stale && !search.loading ? (search.tools[0] ?? null) : undefined;
  useEffect(() => {
    if (pickWhenFresh && !listOpen) setPickWhenFresh(false);
    if (!pickWhenFresh || freshTop === undefined) return;
    setPickWhenFresh(false);
    if (freshTop) pick(freshTop);
  }, [pickWhenFresh, freshTop, pick, listOpen]);

  const openPalette = () => {
    const area = areaRef.current;
    if (!area) return;
    setPicked(null);
    const current = findPaletteTrigger(area.value, area.selectionStart);
    if (current) {
      setDismissedAt(null);
      area.focus();
      return;
    }
    const next = insertTrigger(area.value, area.selectionStart, area.selectionEnd);
    setDismissedAt(null);
    replaceText(next.text, next.caret);
  };

  // "Edit and run again" on a palette run's card: its tool's form, filled with that run's arguments.
  const rerunRequest = useRerun((st) => st.request);
  const rerunDone = useRerun((st) => st.done);
  const [rerunError, setRerunError] = useState<ErrorInfo | null>(null);
  useEffect(() => {
    if (!rerunRequest) return;
    rerunDone();
    const { args, ...ref } = rerunRequest;
    setRerunError(null);
    void client.call('tools.get', ref).then((r) => {
      if (!r.ok) return setRerunError(r.error);
      setPicked({ tool: r.value, trigger: null, args });
    });
  }, [rerunRequest, rerunDone, client]);

  useImperativeHandle(ref, () => ({ focus: () => areaRef.current?.focus(), openPalette }));

  const closeForm = () => {
    setPicked(null);
    if (trigger) setDismissedAt(trigger.start);
    areaRef.current?.focus();
  };

  const onRan = () => {
    const area = areaRef.current;
    const current = area?.value ?? text;
    const found = picked?.trigger ? locateTrigger(current, area?.selectionStart ?? caret, picked.trigger) : null;
    setPicked(null);
    setDismissedAt(null);
    if (found) {
      const next = removeTrigger(current, found);
      replaceText(next.text, next.caret);
    } else {
      area?.focus();
    }
  };

  const send = async () => {
    if (!canSend) return;
    setSending(true);
    setSendError(null);
    try {
      const conversationId = await ensureConversation();
      const files = attachments.map(({ name, mimeType, dataBase64 }) => ({ name, mimeType, dataBase64 }));
      const r = await client.call('chat.send', { conversationId, text, ...(files.length ? { attachments: files } : {}) });
      if (r.ok) {
        addMessages(qc, conversationId, r.value);
        replaceText('', 0);
        setAttachments([]);
        setAttachErrors([]);
      } else {
        setSendError(r.error);
      }
    } catch (e) {
      setSendError({ code: 'UNAVAILABLE', message: (e as Error).message });
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      openPalette();
      return;
    }
    if (listOpen) {
      const count = search.tools.length;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (count > 0) setActive((a) => nextActive(a, count, e.key === 'ArrowDown', search.more));
        return;
      }
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        if (search.stale || search.loading) setPickWhenFresh(true);
        else if (search.tools[active]) pick(search.tools[active]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        setDismissedAt(trigger.start);
        return;
      }
    }
    if (e.key === 'Escape' && picked) {
      e.preventDefault();
      closeForm();
      return;
    }
    if (e.key === 'Escape' && running) {
      e.preventDefault();
      void stop();
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      void send();
    }
  };

  const jumpTo = (err: DirectiveError) => {
    const area = areaRef.current;
    if (!area) return;
    area.focus();
    area.setSelectionRange(err.start, Math.max(err.start, err.end));
    setCaret(err.start);
  };

  const errorsId = `${ids}-errors`;
  const helpId = `${ids}-help`;
  const activeOption = listOpen && search.tools[active] ? optionId(listId, active) : undefined;
  return (
    <div
      className={dropping ? 'composer dropping' : 'composer'}
      data-testid="composer"
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        if (e.dataTransfer.files.length === 0) return;
        e.preventDefault();
        setDropping(false);
        void attach([...e.dataTransfer.files]);
      }}
    >
      {(listOpen || picked) && (
        <div className="palette" data-testid="palette" role="group" aria-label={s.palette.label}>
          {picked ? (
            <PaletteRunForm key={picked.tool.id} tool={picked.tool} composerTools={parsed.tools} onRan={onRan} onClose={closeForm} {...(picked.args !== undefined ? { initialArgs: picked.args } : {})} />
          ) : (
            <PaletteList
              id={listId}
              query={trigger?.query ?? ''}
              tools={search.tools}
              words={search.words}
              ranked={search.ranked}
              active={active}
              stale={search.stale}
              loading={search.loading}
              error={search.error}
              more={search.more}
              loadingMore={search.loadingMore}
              onLoadMore={search.loadMore}
              onPick={pick}
              onHover={setActive}
            />
          )}
        </div>
      )}
      <div className="composer-row">
        <div className={parsed.errors.length > 0 ? 'composer-field invalid' : 'composer-field'}>
          <HighlightLayer ref={mirrorRef} text={text} parsed={parsed} />
          <textarea
            ref={areaRef}
            className="composer-input"
            rows={3}
            spellCheck={false}
            value={text}
            placeholder={s.composer.placeholder}
            aria-label={s.composer.label}
            aria-describedby={parsed.errors.length > 0 ? `${errorsId} ${helpId}` : helpId}
            aria-invalid={parsed.errors.length > 0}
            aria-autocomplete="list"
            aria-controls={listOpen ? listId : undefined}
            aria-activedescendant={activeOption}
            aria-keyshortcuts="Control+K Meta+K"
            data-testid="chat-composer"
            onChange={(e) => {
              setText(e.target.value);
              setCaret(e.target.selectionStart);
              setSendError(null);
            }}
            onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
            onScroll={syncScroll}
            onKeyDown={onKeyDown}
            onPaste={(e) => {
              const files = [...e.clipboardData.files];
              if (files.length === 0) return;
              e.preventDefault();
              void attach(files);
            }}
          />
        </div>
        <div className="composer-buttons">
          <input
            ref={fileRef}
            type="file"
            multiple
            className="composer-attach-input"
            tabIndex={-1}
            aria-hidden="true"
            data-testid="composer-file-input"
            accept="image/png,image/jpeg,image/gif,image/webp,text/*,.txt,.md,.markdown,.json,.csv,.tsv,.ts,.tsx,.js,.jsx,.py,.yaml,.yml,.toml,.xml,.html,.css,.sql,.sh,.log"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              void attach(files);
            }}
          />
          <button type="button" className="composer-attach" data-testid="composer-attach" title={attachmentStrings.attachLabel} aria-label={attachmentStrings.attachLabel} onClick={() => fileRef.current?.click()}>
            {attachmentStrings.attach}
          </button>
          {running && (
            <button
              type="button"
              className="composer-stop"
              data-testid="chat-stop"
              aria-keyshortcuts="Escape"
              title={s.turn.stopLabel}
              disabled={stopping}
              onClick={() => void stop()}
            >
              <span className="stop-square" aria-hidden="true" /> {stopping ? s.turn.stopping : s.turn.stop}
            </button>
          )}
          <button type="button" className="primary composer-send" data-testid="chat-send" disabled={!canSend} onClick={() => void send()}>
            {sending ? s.composer.sending : s.composer.send}
          </button>
        </div>
      </div>
      <AttachmentTray items={attachments} onRemove={(i) => setAttachments((old) => old.filter((_, j) => j !== i))} />
      {attachErrors.length > 0 && (
        <FieldError as="ul" className="composer-attach-errors" role="alert" data-testid="composer-attach-errors">
          {attachErrors.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </FieldError>
      )}
      {parsed.errors.length > 0 && (
        <div className="composer-errors" id={errorsId} data-testid="composer-errors">
          <FieldError>{s.composer.errorsTitle}</FieldError>
          <ul>
            {parsed.errors.map((err, i) => (
              <li key={i}>
                <button type="button" className="link-button field-error" onClick={() => jumpTo(err)}>
                  {s.composer.errorAt(err.line, err.column, err.message)}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {sendError && <SendError error={sendError} />}
      {rerunError && (
        <FieldError role="alert" data-testid="rerun-error">
          <code className="error-code">{rerunError.code}</code> {rerunError.message}
        </FieldError>
      )}
      {stopError && (
        <FieldError role="alert">
          {s.turn.stopFailed} <code className="error-code">{stopError.code}</code> {stopError.message}
        </FieldError>
      )}
      <p className="help" id={helpId}>
        {s.composer.help}
      </p>
    </div>
  );
}

/** A refused message: the core's message, and the directive errors it found (unknown tools, ...). */
function SendError({ error }: { error: ErrorInfo }) {
  const details = error.details as { errors?: unknown } | undefined;
  const list = Array.isArray(details?.errors) ? (details.errors as Partial<DirectiveError>[]) : [];
  return (
    <div className="result-error" role="alert" data-testid="composer-send-error">
      <p>
        {s.composer.sendFailed} <code className="error-code">{error.code}</code> {error.message}
      </p>
      {list.length > 0 && (
        <ul className="issue-list">
          {list.map((e, i) => (
            <li key={i}>{typeof e.line === 'number' && typeof e.column === 'number' ? s.composer.errorAt(e.line, e.column, String(e.message ?? '')) : String(e.message ?? '')}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
