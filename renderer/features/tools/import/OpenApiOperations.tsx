/**
 * The operations an OpenAPI document offers, each with a checkbox.
 *
 * - One Tab stop for the whole list (a roving tabindex): Up/Down, Home/End move between the
 *   checkboxes and Space toggles one, so a thousand operations do not stand between a
 *   keyboard user and what follows the list.
 * - Memoised: a long import updates its progress once per tool, and re-rendering a thousand
 *   rows each time would cost more than saving the tools.
 */
import { memo, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { OpenApiOperation } from '../../../../shared/model/transfer';
import { importStrings as s } from '../../../i18n/import-strings';

export interface OpenApiOperationsProps {
  operations: readonly OpenApiOperation[];
  selected: ReadonlySet<string>;
  /** While an import runs, the choice is fixed. */
  locked: boolean;
  onToggle: (key: string, on: boolean) => void;
}

export const OpenApiOperations = memo(function OpenApiOperations({ operations, selected, locked, onToggle }: OpenApiOperationsProps) {
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
    listRef.current?.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')[to]?.focus();
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
            </label>
            {op.warnings.length > 0 && (
              <ul className="import-warnings" aria-label={s.openapi.warnings}>
                {op.warnings.map((w, k) => (
                  <li key={k}>{w}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </>
  );
});
