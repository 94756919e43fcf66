/**
 * Export a buffer to a workspace file ('buffers.export') with a write mode; once written,
 * "Open file" shows it in the Files tab.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { WriteMode } from '../../../shared/model/routing';
import { useOpMutation } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useUi } from '../../stores/ui';

const MODES: WriteMode[] = ['append', 'replace', 'new'];

export function BufferExport({ ownerId, name }: { ownerId: string; name: string }) {
  const [path, setPath] = useState(() => s.export.defaultPath(name));
  const [mode, setMode] = useState<WriteMode>('append');
  const exp = useOpMutation('buffers.export');
  const qc = useQueryClient();
  const openInspector = useUi((st) => st.openInspector);
  const titleId = useId();
  const pathId = useId();
  const helpId = useId();
  const modeId = useId();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    exp.mutate(
      { ownerId, name, path: path.trim(), writeMode: mode },
      {
        onSuccess: () => {
          void qc.invalidateQueries({ queryKey: ['workspace.list'] });
          void qc.invalidateQueries({ queryKey: ['workspace.read'] });
        },
      },
    );
  };

  return (
    <section className="buffer-export" aria-labelledby={titleId}>
      <h3 id={titleId}>{s.export.title}</h3>
      <form className="export-form" onSubmit={submit}>
        <label htmlFor={pathId}>{s.export.path}</label>
        <input
          id={pathId}
          data-testid="buffer-export-path"
          value={path}
          aria-describedby={helpId}
          aria-invalid={!!exp.error}
          onChange={(e) => {
            setPath(e.target.value);
            exp.reset();
          }}
        />
        <p id={helpId} className="help">
          {s.export.pathHelp}
        </p>
        <label htmlFor={modeId}>{s.export.mode}</label>
        <select id={modeId} data-testid="buffer-export-mode" value={mode} onChange={(e) => setMode(e.target.value as WriteMode)}>
          {MODES.map((m) => (
            <option key={m} value={m}>
              {s.export.modes[m]}
            </option>
          ))}
        </select>
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="buffer-export-submit" disabled={!path.trim() || exp.isPending}>
            {exp.isPending ? s.export.exporting : s.export.submit}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {exp.error && (
          <FieldError role="alert" data-testid="buffer-export-error">
            {exp.error.message}
          </FieldError>
        )}
        {exp.data && (
          <p className="status-ok export-done" data-testid="buffer-export-done">
            {s.export.done(exp.data.chars, exp.data.path)}{' '}
            <button type="button" data-testid="buffer-export-open" onClick={() => openInspector({ kind: 'file', path: exp.data.path })}>
              {s.export.open}
            </button>
          </p>
        )}
      </div>
    </section>
  );
}
