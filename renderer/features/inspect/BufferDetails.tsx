/** One buffer: its name and size, go to line, delete (confirmed), the viewer, search and export. */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { BufferInfo } from '../../../shared/model/routing';
import { useOpMutation } from '../../api/hooks';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { BufferExport } from './BufferExport';
import { BufferSearch } from './BufferSearch';
import { BufferViewer } from './BufferViewer';
import { useInspect } from './inspect-store';

export function BufferDetails({ info }: { info: BufferInfo }) {
  const titleId = useId();
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
      <BufferViewer source={{ kind: 'buffer', ownerId: info.ownerId, name: info.name }} label={s.viewer.label(info.name)} totalLines={info.lines} totalChars={info.chars} />
      <div className="buffer-tools">
        <BufferSearch ownerId={info.ownerId} name={info.name} />
        <BufferExport ownerId={info.ownerId} name={info.name} />
      </div>
    </section>
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
        <p id={errorId} className="field-error" role="alert">
          {s.viewer.lineOutOfRange(totalLines)}
        </p>
      )}
    </form>
  );
}

function DeleteBuffer({ info }: { info: BufferInfo }) {
  const [confirming, setConfirming] = useState(false);
  const del = useOpMutation('buffers.delete');
  const qc = useQueryClient();
  const selectBuffer = useInspect((st) => st.selectBuffer);
  const questionId = useId();

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

  if (!confirming) {
    return (
      <button type="button" className="inspect-danger" data-testid="buffer-delete" onClick={() => setConfirming(true)}>
        {s.viewer.delete}
      </button>
    );
  }
  return (
    <div className="inspect-confirm" role="alertdialog" aria-labelledby={questionId} data-testid="buffer-delete-confirmation">
      <p id={questionId}>{s.viewer.confirmDelete(info.name)}</p>
      {del.error && (
        <p className="field-error" role="alert">
          {del.error.message}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="inspect-danger" data-testid="buffer-delete-confirm" disabled={del.isPending} onClick={remove} autoFocus>
          {s.viewer.confirmDeleteYes}
        </button>
        <button type="button" data-testid="buffer-delete-keep" onClick={() => setConfirming(false)}>
          {s.viewer.keep}
        </button>
      </div>
    </div>
  );
}
