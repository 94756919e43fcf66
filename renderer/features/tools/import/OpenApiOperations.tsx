/**
 * The operations an OpenAPI document offers, each with a checkbox.
 *
 * - One Tab stop for the whole list (a roving tabindex): Up/Down, Home/End move between the
 *   checkboxes and Space toggles one, so a thousand operations do not stand between a
 *   keyboard user and what follows the list.
 * - Memoised: a long import updates its progress once per tool, and re-rendering a thousand
 *   rows each time would cost more than saving the tools.
 * - Each operation shows how many arguments it has for the document's inputs, and (folded)
 *   its optional arguments, each with a checkbox to keep it or leave it out.
 * - The importer's warnings: problems to act on in red, notes (what was done that needs
 *   nothing) folded under a count in a neutral style (openapi-notes.ts).
 */
import { memo, useId, useRef, useState, type KeyboardEvent } from 'react';
import { argumentsOf } from '../../../../shared/model/openapi-proposal';
import type { OpenApiOperation } from '../../../../shared/model/transfer';
import { importStrings as s } from '../../../i18n/import-strings';
import { sortWarnings } from './openapi-notes';

export interface OpenApiOperationsProps {
  operations: readonly OpenApiOperation[];
  selected: ReadonlySet<string>;
  /** Optional arguments cleared, by operation key. */
  dropped: ReadonlyMap<string, ReadonlySet<string>>;
  /** While an import runs, the choice is fixed. */
  locked: boolean;
  onToggle: (key: string, on: boolean) => void;
  onToggleArg: (key: string, name: string, keep: boolean) => void;
}

export const OpenApiOperations = memo(function OpenApiOperations({ operations, selected, dropped, locked, onToggle, onToggleArg }: OpenApiOperationsProps) {
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const hintId = useId();
  const current = Math.max(0, Math.min(active, operations.length - 1));

  const onKeyDown = (e: KeyboardEvent, i: number) => {
    const last = operations.length - 1;
    const to = e.key === 'ArrowDown' ? Math.min(i + 1, last) : e.key === 'ArrowUp' ? Math.max(i - 1, 0) : e.key === 'Home' ? 0 : e.key === 'End' ? last : null;
    if (to === null) return;
    e.preventDefault();
    setActive(to);
    // Only the operations' own boxes: each row also holds its optional arguments' boxes.
    listRef.current?.querySelectorAll<HTMLInputElement>('input[data-op-box]')[to]?.focus();
  };

  return (
    <>
      <p className="help" id={hintId}>
        {s.openapi.listHint}
      </p>
      <ul className="import-ops" ref={listRef} data-testid="openapi-op-list">
        {operations.map((op, i) => (
          <li key={op.key} data-testid={`openapi-op-${op.slug}`}>
            <label className="import-op">
              <input
                type="checkbox"
                data-op-box=""
                checked={selected.has(op.key)}
                disabled={locked}
                tabIndex={i === current ? 0 : -1}
                aria-label={s.openapi.select(op.method, op.path)}
                aria-describedby={i === current ? hintId : undefined}
                onFocus={() => setActive(i)}
                onKeyDown={(e) => onKeyDown(e, i)}
                onChange={(e) => onToggle(op.key, e.target.checked)}
              />
              <span className="badge">{op.method}</span>
              <code>{op.path}</code>
              <span className="import-op-summary">{op.summary}</span>
              <code className="muted">{op.slug}</code>
              <span className="muted" data-testid={`openapi-inputs-${op.slug}`}>
                {s.openapi.inputs(op.inputs.arguments, op.inputs.document)}
              </span>
            </label>
            <OptionalArgs op={op} dropped={dropped.get(op.key)} locked={locked} onToggleArg={onToggleArg} />
            <Warnings op={op} />
          </li>
        ))}
      </ul>
    </>
  );
});

function OptionalArgs({ op, dropped, locked, onToggleArg }: { op: OpenApiOperation; dropped: ReadonlySet<string> | undefined; locked: boolean; onToggleArg: OpenApiOperationsProps['onToggleArg'] }) {
  const optional = argumentsOf(op.tool).filter((a) => !a.required);
  if (optional.length === 0) return null;
  const kept = optional.filter((a) => !dropped?.has(a.name)).length;
  return (
    <details className="import-args" data-testid={`openapi-args-${op.slug}`}>
      <summary>{s.openapi.optionalArgs(kept, optional.length)}</summary>
      <p className="help">{s.openapi.optionalHint}</p>
      <ul>
        {optional.map((a) => (
          <li key={a.name}>
            <label title={a.description}>
              <input type="checkbox" checked={!dropped?.has(a.name)} disabled={locked} aria-label={s.openapi.keepArg(a.name)} onChange={(e) => onToggleArg(op.key, a.name, e.target.checked)} /> <code>{a.name}</code>
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Warnings({ op }: { op: OpenApiOperation }) {
  if (op.warnings.length === 0) return null;
  const { problems, notes } = sortWarnings(op.warnings);
  return (
    <>
      {problems.length > 0 && (
        <ul className="import-warnings" aria-label={s.openapi.warnings} data-testid={`openapi-problems-${op.slug}`}>
          {problems.map((w, k) => (
            <li key={k}>{w}</li>
          ))}
        </ul>
      )}
      {notes.length > 0 && (
        <details className="import-op-notes" data-testid={`openapi-notes-${op.slug}`}>
          <summary>{s.openapi.notes(notes.length)}</summary>
          <ul>
            {notes.map((w, k) => (
              <li key={k}>{w}</li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
