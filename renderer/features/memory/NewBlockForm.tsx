/**
 * Inspect → Memory's "New block": a block in the memory shown (label, schema Text, List or
 * Map, permission, pinned, character limit, content), made with memory.blocks.create. A
 * refusal (a label taken, content over the limit) is shown with what was typed kept.
 */
import { useId, useState, type FormEvent } from 'react';
import type { ErrorInfo } from '../../../shared/errors';
import { DEFAULT_BLOCK_CHAR_LIMIT, MEMORY_PERMISSIONS, type MemoryPermission } from '../../../shared/model/memory';
import { useApi } from '../../api/hooks';
import { FieldError } from '../../components/Field';
import { memoryStrings } from '../../i18n/memory-strings';
import { blockContent, type NewBlockKind } from './new-block';

const s = memoryStrings.tab.create;
const KINDS: NewBlockKind[] = ['Text', 'List', 'Map'];

export function NewBlockForm({ owner, onCreated }: { owner: string; onCreated: (label: string) => void }) {
  const { client } = useApi();
  const ids = useId();
  const [label, setLabel] = useState('');
  const [kind, setKind] = useState<NewBlockKind>('Text');
  const [permission, setPermission] = useState<MemoryPermission>('ReadWrite');
  const [pinned, setPinned] = useState(false);
  const [limit, setLimit] = useState(String(DEFAULT_BLOCK_CHAR_LIMIT));
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ErrorInfo | null>(null);
  const content = blockContent(kind, text);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy || !content.ok) return;
    setBusy(true);
    setProblem(null);
    try {
      const r = await client.call('memory.blocks.create', { owner, label: label.trim(), schema: { kind }, permission, pinned, charLimit: Number(limit), content: content.content });
      if (!r.ok) setProblem(r.error);
      else {
        onCreated(r.value.label);
        setLabel('');
        setText('');
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <details className="memory-new">
      <summary data-testid="memory-new-open">{s.open}</summary>
      <form className="memory-new-form" aria-label={s.title} onSubmit={(e) => void submit(e)} data-testid="memory-new-form">
        <label htmlFor={`${ids}-label`}>{s.label}</label>
        <input id={`${ids}-label`} data-testid="memory-new-label" value={label} required maxLength={200} aria-describedby={`${ids}-label-help`} onChange={(e) => setLabel(e.target.value)} />
        <span className="help" id={`${ids}-label-help`}>
          {s.labelHelp}
        </span>
        <label htmlFor={`${ids}-schema`}>{s.schema}</label>
        <select id={`${ids}-schema`} data-testid="memory-new-schema" value={kind} onChange={(e) => setKind(e.target.value as NewBlockKind)}>
          {KINDS.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
        <label htmlFor={`${ids}-permission`}>{s.permission}</label>
        <select id={`${ids}-permission`} data-testid="memory-new-permission" value={permission} aria-describedby={`${ids}-permission-help`} onChange={(e) => setPermission(e.target.value as MemoryPermission)}>
          {MEMORY_PERMISSIONS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <span className="help" id={`${ids}-permission-help`}>
          {s.permissionHelp}
        </span>
        <label htmlFor={`${ids}-limit`}>{s.limit}</label>
        <input id={`${ids}-limit`} type="number" min={1} max={1_000_000} data-testid="memory-new-limit" value={limit} onChange={(e) => setLimit(e.target.value)} />
        <label className="checkbox">
          <input type="checkbox" data-testid="memory-new-pinned" checked={pinned} onChange={(e) => setPinned(e.target.checked)} /> {s.pinned}
        </label>
        <label htmlFor={`${ids}-content`}>{s.content}</label>
        <textarea id={`${ids}-content`} data-testid="memory-new-content" rows={4} value={text} aria-invalid={!content.ok} aria-describedby={`${ids}-content-help`} onChange={(e) => setText(e.target.value)} />
        <span className={content.ok ? 'help' : 'field-error'} id={`${ids}-content-help`}>
          {content.ok ? s.contentHelp[kind] : s.badJson}
        </span>
        <div className="form-actions">
          <button type="submit" className="primary" data-testid="memory-new-save" disabled={busy || !content.ok || !label.trim()}>
            {busy ? s.saving : s.save}
          </button>
        </div>
        {problem && (
          <FieldError role="alert" data-testid="memory-new-problem">
            {memoryStrings.tab.failed} <code className="error-code">{problem.code}</code> {problem.message}
          </FieldError>
        )}
      </form>
    </details>
  );
}
