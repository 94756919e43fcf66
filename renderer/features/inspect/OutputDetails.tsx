/**
 * One stored output: its tool, arguments and figures, its text in the virtualised viewer,
 * an extraction run by hand (what to extract, the strategy) with its figures and result, and
 * delete after a confirmation.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { StoredOutputSummary } from '../../../shared/contract';
import { useOpMutation } from '../../api/hooks';
import { ConfirmButton } from '../../components/ConfirmButton';
import { FieldError } from '../../components/Field';
import { inspectStrings as is } from '../../i18n/inspect-strings';
import { outputStrings as s } from '../../i18n/output-strings';
import { ExtractionView } from '../chat/ExtractionView';
import { formatBytes, formatTokens } from '../outputs/format';
import { BufferViewer } from './BufferViewer';
import { useInspect } from './inspect-store';

const MODES = ['auto', 'full-chunked', 'read-grep', 'truncate'] as const;
type Mode = (typeof MODES)[number];

export function OutputDetails({ info }: { info: StoredOutputSummary }) {
  const titleId = useId();
  return (
    <section className="buffer-details" aria-labelledby={titleId} data-testid="output-details" data-handle={info.handle}>
      <header className="buffer-head">
        <div>
          <h2 id={titleId}>{info.toolName}</h2>
          <p className="muted small">
            <code data-testid="output-handle">{info.handle}</code>
          </p>
          <p className="muted small" data-testid="output-figures">
            {s.inspect.figures(formatBytes(info.bytes), info.lines, formatTokens(info.tokens, info.tokensExact))} · {s.inspect.created(is.when(info.createdAt))}
          </p>
          <p className="muted small output-args" title={info.argsJson}>
            {s.inspect.args}: <code>{info.argsJson}</code>
          </p>
        </div>
        <DeleteOutput handle={info.handle} />
      </header>
      <BufferViewer source={{ kind: 'output', handle: info.handle }} label={s.inspect.viewerLabel(info.toolName)} totalLines={info.lines} totalChars={info.bytes} followJump={false} testId="output-viewer" />
      <ExtractForm handle={info.handle} />
    </section>
  );
}

function ExtractForm({ handle }: { handle: string }) {
  const run = useOpMutation('toolOutputs.extract');
  const [extract, setExtract] = useState('');
  const [mode, setMode] = useState<Mode>('auto');
  const inputId = useId();
  const modeId = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!extract.trim()) return;
    run.mutate({ handle, extract: extract.trim(), ...(mode !== 'auto' ? { mode } : {}) });
  };
  const r = run.data;
  return (
    <section className="output-extract" aria-labelledby={`${inputId}-title`}>
      <h3 id={`${inputId}-title`}>{s.inspect.extractTitle}</h3>
      <form className="extract-form" onSubmit={submit}>
        <label htmlFor={inputId}>{s.inspect.extractInput}</label>
        <textarea id={inputId} data-testid="output-extract-input" rows={2} value={extract} placeholder={s.inspect.extractPlaceholder} onChange={(e) => setExtract(e.target.value)} />
        <div className="extract-row">
          <label htmlFor={modeId}>{s.inspect.mode}</label>
          <select id={modeId} data-testid="output-extract-mode" value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {s.inspect.modes[m]}
              </option>
            ))}
          </select>
          <button type="submit" className="primary" data-testid="output-extract-run" disabled={run.isPending || !extract.trim()}>
            {run.isPending ? s.inspect.running : s.inspect.run}
          </button>
        </div>
      </form>
      {run.error && (
        <FieldError role="alert">
          {s.inspect.failed} {run.error.message}
        </FieldError>
      )}
      {r && (
        <div className="extract-result" data-testid="output-extract-result" data-error={r.isError}>
          {r.extraction && <ExtractionView x={r.extraction} />}
          <h4>{s.inspect.result}</h4>
          <pre className={r.isError ? 'extract-text error' : 'extract-text'} data-testid="output-extract-text">
            {r.text}
          </pre>
        </div>
      )}
    </section>
  );
}

function DeleteOutput({ handle }: { handle: string }) {
  const qc = useQueryClient();
  const del = useOpMutation('toolOutputs.delete');
  const select = useInspect((st) => st.selectOutput);
  const remove = () =>
    del.mutate(
      { handle },
      {
        onSuccess: () => {
          select(null);
          void qc.invalidateQueries({ queryKey: ['toolOutputs.list'] });
        },
      },
    );
  return (
    <ConfirmButton
      asks="inline"
      className="inspect-danger"
      boxClassName="inspect-confirm"
      confirmClassName="inspect-danger"
      data-testid="output-delete"
      question={s.inspect.confirmDelete}
      confirmLabel={s.inspect.confirmDeleteYes}
      cancelLabel={s.inspect.keep}
      error={del.error}
      pending={del.isPending}
      onConfirm={remove}
    >
      {s.inspect.delete}
    </ConfirmButton>
  );
}
