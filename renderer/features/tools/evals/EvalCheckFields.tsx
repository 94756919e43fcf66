/**
 * Parts of the eval case editor: an expected tool's argument checks (JSONPath equals a JSON
 * value, text contains, a JSON Schema), and the "kind, then Add" control that adds a check.
 * Each field is drawn by the editor's `field` (a shared Field: label, hint and issue).
 */
import { useId, useState, type ReactNode } from 'react';
import type { FieldControlProps } from '../../../components/Field';
import { evalsStrings } from '../../../i18n/evals-strings';
import { newArgCheck, type ArgCheckDraft } from './eval-case-form';

const s = evalsStrings.editor;

/** What a field's control gets: the Field's attributes, and the key of the case's field it edits. */
export type FieldControl = FieldControlProps & { 'data-field': string };

/** The editor's field: its key, its label, the control, and a hint (EvalCaseEditor `field`). */
export type FieldOf = (key: string, label: ReactNode, control: (c: FieldControl) => ReactNode, hint?: ReactNode) => ReactNode;

export function ArgChecks({
  prefix,
  checks,
  field,
  onChange,
  onSet,
}: {
  prefix: string;
  checks: ArgCheckDraft[];
  field: FieldOf;
  onChange: (j: number, f: (a: ArgCheckDraft) => ArgCheckDraft) => void;
  onSet: (checks: ArgCheckDraft[]) => void;
}) {
  return (
    <div className="eval-arg-checks">
      <p className="eval-sub">{s.argChecks}</p>
      {checks.length === 0 && <p className="muted small">{s.argChecksNone}</p>}
      <ol className="eval-items">
        {checks.map((a, j) => {
          const at = `${prefix}.args.${j}`;
          return (
            <li key={a.key} className="eval-item eval-arg-check" data-testid="eval-arg-check" data-kind={a.kind}>
              <div className="eval-item-row">
                <p className="eval-item-title">{s.argKinds[a.kind]}</p>
                <button type="button" className="eval-remove" aria-label={s.removeCheckLabel(s.argKinds[a.kind], j + 1)} onClick={() => onSet(checks.filter((_, k) => k !== j))}>
                  {s.removeCheck(s.argKinds[a.kind])}
                </button>
              </div>
              {a.kind === 'jsonPathEquals' && (
                <div className="eval-pair">
                  <div className="eval-field">
                    {field(`${at}.path`, s.path, (c) => (
                      <input {...c} data-testid="eval-arg-path" value={a.path} placeholder={s.pathPlaceholder} onChange={(e) => onChange(j, (x) => ({ ...x, path: e.target.value }) as ArgCheckDraft)} />
                    ))}
                  </div>
                  <div className="eval-field">
                    {field(`${at}.value`, s.value, (c) => (
                      <input {...c} data-testid="eval-arg-value" className="eval-code" value={a.value} placeholder={s.valuePlaceholder} onChange={(e) => onChange(j, (x) => ({ ...x, value: e.target.value }) as ArgCheckDraft)} />
                    ))}
                  </div>
                </div>
              )}
              {a.kind === 'contains' && (
                <>
                  {field(`${at}.text`, s.text, (c) => <input {...c} value={a.text} onChange={(e) => onChange(j, (x) => ({ ...x, text: e.target.value }) as ArgCheckDraft)} />)}
                  <label className="inline-check">
                    <input type="checkbox" checked={a.ignoreCase} onChange={(e) => onChange(j, (x) => ({ ...x, ignoreCase: e.target.checked }) as ArgCheckDraft)} />
                    {s.ignoreCase}
                  </label>
                </>
              )}
              {a.kind === 'schema' &&
                field(
                  `${at}.schema`,
                  s.schema,
                  (c) => <textarea {...c} className="eval-code" rows={3} value={a.schema} onChange={(e) => onChange(j, (x) => ({ ...x, schema: e.target.value }) as ArgCheckDraft)} />,
                  s.schemaHelp,
                )}
            </li>
          );
        })}
      </ol>
      <AddByKind label={s.addArgCheck} kinds={s.argKinds} testId="eval-add-arg-check" onAdd={(k) => onSet([...checks, newArgCheck(k)])} />
    </div>
  );
}

/** A kind to choose and a button that adds one of it. */
export function AddByKind<K extends string>({ label, kinds, testId, onAdd }: { label: string; kinds: Record<K, string>; testId: string; onAdd: (kind: K) => void }) {
  const id = useId();
  const keys = Object.keys(kinds) as K[];
  const [kind, setKind] = useState<K>(keys[0]!);
  return (
    <div className="eval-add">
      <label htmlFor={id} className="visually-hidden">
        {s.checkKind}
      </label>
      <select id={id} value={kind} data-testid={`${testId}-kind`} onChange={(e) => setKind(e.target.value as K)}>
        {keys.map((k) => (
          <option key={k} value={k}>
            {kinds[k]}
          </option>
        ))}
      </select>
      <button type="button" data-testid={testId} onClick={() => onAdd(kind)}>
        {label}
      </button>
    </div>
  );
}
