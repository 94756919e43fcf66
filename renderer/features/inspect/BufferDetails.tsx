/** One buffer: its name and size, go to line, delete (confirmed), the viewer, search and export. */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { BufferInfo } from '../../../shared/model/routing';
import { useOp, useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { BufferExport } from './BufferExport';
import { BufferSearch } from './BufferSearch';
import { BufferViewer } from './BufferViewer';
import { useInspect } from './inspect-store';
import { WHOLE_VIEW_MAX_CHARS, wholeView, type TextViewMode } from './text-view';

export function BufferDetails({ info }: { info: BufferInfo }) {
  const titleId = useId();
  const [mode, setMode] = useState<TextViewMode>('lines');
  // A search result or go-to-line goes to the line viewer, where the match is marked.
  const jump = useInspect((st) => st.jump);
  const lastJump = useRef(jump);
  useEffect(() => {
    if (jump !== lastJump.current) setMode('lines');
    lastJump.current = jump;
  }, [jump]);
  return (
    <section className="buffer-details" aria-labelledby={titleId}>
      <header className="buffer-head">
        <div>
          <h2 id={titleId}>{info.name}</h2>
          <p className="muted small">
            {s.viewer.stats(info.chars, info.lines)} · {s.buffers.updated(s.when(info.updatedAt))} · {s.buffers.source(info.source)}
          </p>
        </div>
        <GoToLine totalLines={info.lines} />
        <DeleteBuffer info={info} />
      </header>
      <ViewModes mode={mode} onChange={setMode} />
      {mode === 'lines' ? (
        <BufferViewer source={{ kind: 'buffer', ownerId: info.ownerId, name: info.name }} label={s.viewer.label(info.name)} totalLines={info.lines} totalChars={info.chars} />
      ) : (
        <WholeText info={info} mode={mode} />
      )}
      <div className="buffer-tools">
        <BufferSearch ownerId={info.ownerId} name={info.name} />
        <BufferExport ownerId={info.ownerId} name={info.name} />
      </div>
    </section>
  );
}

function ViewModes({ mode, onChange }: { mode: TextViewMode; onChange(mode: TextViewMode): void }) {
  const name = useId();
  return (
    <fieldset className="view-modes" data-testid="buffer-view-modes">
      <legend className="visually-hidden">{s.viewer.viewMode}</legend>
      <span className="muted small" aria-hidden="true">
        {s.viewer.viewMode}
      </span>
      {(['lines', 'wrapped', 'json'] as const).map((m) => (
        <label key={m} className={mode === m ? 'view-mode on' : 'view-mode'}>
          <input type="radio" name={name} value={m} checked={mode === m} onChange={() => onChange(m)} data-testid={`buffer-view-${m}`} />
          {s.viewer.modes[m]}
        </label>
      ))}
    </fieldset>
  );
}

/** The whole buffer, wrapped or as indented JSON (buffers up to WHOLE_VIEW_MAX_CHARS). */
function WholeText({ info, mode }: { info: BufferInfo; mode: Exclude<TextViewMode, 'lines'> }) {
  const fits = info.chars <= WHOLE_VIEW_MAX_CHARS;
  const read = useOp('buffers.read', { ownerId: info.ownerId, name: info.name, offset: 0, length: Math.max(1, info.chars) }, { enabled: fits && info.chars > 0 });
  const label = s.viewer.wholeLabel(info.name, s.viewer.modes[mode]);
  let body;
  if (!fits) body = <p className="muted">{s.viewer.wholeTooLarge(info.chars, WHOLE_VIEW_MAX_CHARS)}</p>;
  else if (info.chars === 0) body = <p className="muted">{s.viewer.emptyBuffer}</p>;
  else if (read.error) body = <FieldError role="alert">{s.viewer.wholeFailed(read.error.message)}</FieldError>;
  else if (!read.data) body = <p className="muted" role="status">{s.viewer.wholeLoading}</p>;
  else {
    const view = wholeView(read.data.text, mode);
    body = view.ok ? (
      <pre className="buffer-whole-text">{view.text}</pre>
    ) : (
      <>
        <FieldError role="alert" data-testid="buffer-whole-error">
          {view.reason}
        </FieldError>
        <pre className="buffer-whole-text">{read.data.text}</pre>
      </>
    );
  }
  return (
    <div className="buffer-whole" data-testid="buffer-whole" role="region" aria-label={label} tabIndex={0}>
      {body}
    </div>
  );
}

function GoToLine({ totalLines }: { totalLines: number }) {
  const jumpTo = useInspect((st) => st.jumpTo);
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState(false);
  const inputId = useId();
  const errorId = useId();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const line = Number(text.trim());
    if (!Number.isInteger(line) || line < 1 || line > totalLines) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    jumpTo(line);
  };

  return (
    <form className="goto-line" onSubmit={submit} role="search" aria-label={s.viewer.goToLine}>
      <label htmlFor={inputId}>{s.viewer.goToLine}</label>
      <input
        id={inputId}
        data-testid="buffer-goto-input"
        inputMode="numeric"
        value={text}
        placeholder={`1–${totalLines.toLocaleString('en')}`}
        title={s.viewer.goToLineLabel(totalLines)}
        aria-invalid={invalid}
        aria-describedby={invalid ? errorId : undefined}
        disabled={totalLines === 0}
        onChange={(e) => {
          setText(e.target.value);
          setInvalid(false);
        }}
      />
      <button type="submit" data-testid="buffer-goto-submit" disabled={totalLines === 0}>
        {s.viewer.go}
      </button>
      {invalid && (
        <FieldError id={errorId} role="alert">
          {s.viewer.lineOutOfRange(totalLines)}
        </FieldError>
      )}
    </form>
  );
}

function DeleteBuffer({ info }: { info: BufferInfo }) {
  const del = useOpMutation('buffers.delete');
  const qc = useQueryClient();
  const selectBuffer = useInspect((st) => st.selectBuffer);
  const remove = () =>
    del.mutate(
      { ownerId: info.ownerId, name: info.name },
      {
        onSuccess: () => {
          selectBuffer(null);
          void qc.invalidateQueries({ queryKey: ['buffers.list'] });
        },
      },
    );
  return (
    <ConfirmButton
      asks="inline"
      className="inspect-danger"
      boxClassName="inspect-confirm"
      confirmClassName="inspect-danger"
      data-testid="buffer-delete"
      question={s.viewer.confirmDelete(info.name)}
      confirmLabel={s.viewer.confirmDeleteYes}
      cancelLabel={s.viewer.keep}
      error={del.error}
      pending={del.isPending}
      onConfirm={remove}
    >
      {s.viewer.delete}
    </ConfirmButton>
  );
}
