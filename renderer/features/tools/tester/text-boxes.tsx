/**
 * The form's shared state (the value, who may change it, which boxes hold invalid text) and
 * the text boxes that edit a part of the value as text: JSON, and numbers.
 */
import { createContext, useContext, useEffect, useState, type KeyboardEventHandler } from 'react';
import { FieldError } from '../../../components/Field';
import { testerStrings as s } from '../../../i18n/tester-strings';
import { getIn, parseJsonText, pathId, toJsonText, type FieldIssue, type Path, type Schema } from './schema-form';

export interface FormContext {
  root: unknown;
  schemaRoot: Schema;
  idBase: string;
  set: (path: Path, v: unknown) => void;
  remove: (path: Path, index: number) => void;
  markInvalid: (key: string, invalid: boolean) => void;
  /** The schema issues of the field at a pointer (`within`: and of everything under it). */
  issuesAt: (pointer: string, within?: boolean) => readonly FieldIssue[];
  /** Enter in a one-line field. */
  onSubmit?: () => void;
}

export const FormCtx = createContext<FormContext | null>(null);
export const useForm = () => useContext(FormCtx)!;

export function Label({ htmlFor, label, required }: { htmlFor?: string; label: string; required: boolean }) {
  const content = (
    <>
      {label}
      {required && (
        <span className="required-mark" title={s.args.required}>
          {' *'}
          <span className="visually-hidden"> ({s.args.required})</span>
        </span>
      )}
    </>
  );
  return htmlFor ? <label htmlFor={htmlFor}>{content}</label> : content;
}

/**
 * A text box holding the JSON of the value at `path`. Text that parses is written at once;
 * text that does not is kept, shown as an error, and marks the form invalid. The box is
 * refilled only when the value is changed from outside (a run loaded from history).
 */
export function JsonBox(props: {
  path: Path;
  label: string;
  required?: boolean;
  testId: string;
  invalidKey: string;
  errorId: string;
  helpId?: string;
  help?: string;
  emptyIs: 'undefined' | 'error';
  rows: number;
}) {
  const { idBase } = useForm();
  const { path } = props;
  const id = `${idBase}-json-${pathId(path)}`;
  const { text, error, onText } = useEditedText(path, props.invalidKey, toJsonText, (next) => {
    const parsed = parseJsonText(next, props.emptyIs);
    if (parsed.ok) return parsed;
    return { ok: false, message: parsed.message === 'empty' ? s.args.invalidJson(s.args.emptyJson) : s.args.invalidJson(parsed.message) };
  });

  const describedBy = [error ? props.errorId : null, props.help ? props.helpId : null].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <Label htmlFor={id} label={props.label} required={props.required ?? false} />
      <textarea
        id={id}
        className="json-box"
        data-testid={props.testId}
        rows={props.rows}
        spellCheck={false}
        value={text}
        aria-invalid={error !== null}
        aria-required={props.required || undefined}
        aria-describedby={describedBy}
        onChange={(e) => onText(e.target.value)}
      />
      {props.help && (
        <p className="help" id={props.helpId}>
          {props.help}
        </p>
      )}
      {error && (
        <FieldError role="alert" id={props.errorId}>
          {error}
          {props.invalidKey === 'json-mode' && ` ${s.args.fixJsonFirst}`}
        </FieldError>
      )}
    </>
  );
}

/**
 * Text edited for the value at `path`: text that parses is written at once; text that does
 * not is kept, its error shown, and the form marked invalid. The text is refilled only when
 * the value changes from outside (a run loaded from history), not by our own writes.
 */
function useEditedText(
  path: Path,
  invalidKey: string,
  format: (v: unknown) => string,
  parse: (text: string) => { ok: true; value: unknown } | { ok: false; message: string },
) {
  const { root, set, markInvalid } = useForm();
  const v = getIn(root, path);
  const [text, setText] = useState(() => format(v));
  const [error, setError] = useState<string | null>(null);
  const [seen, setSeen] = useState<unknown>(v);
  if (v !== seen) {
    // Adjusting state while rendering, as React recommends over an effect for this.
    setSeen(v);
    setText(format(v));
    setError(null);
  }

  useEffect(() => {
    markInvalid(invalidKey, error !== null);
  }, [error, invalidKey, markInvalid]);
  useEffect(() => () => markInvalid(invalidKey, false), [invalidKey, markInvalid]);

  const onText = (next: string) => {
    setText(next);
    const parsed = parse(next);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    setError(null);
    setSeen(parsed.value);
    set(path, parsed.value);
  };
  return { text, error, onText };
}

/** A number as text, so a half-typed "-" or "1e" is kept and flagged rather than lost. */
export function NumberInput({
  path,
  invalid,
  onKeyDown,
  ...attrs
}: {
  path: Path;
  id: string;
  'data-testid': string;
  'aria-required'?: boolean;
  'aria-describedby'?: string;
  placeholder?: string;
  /** The schema refuses the number (its issue is shown by the field). */
  invalid?: boolean;
  onKeyDown?: KeyboardEventHandler<HTMLInputElement>;
}) {
  const errorId = `${attrs.id}-error`;
  const { text, error, onText } = useEditedText(
    path,
    `number:${pathId(path)}`,
    (v) => (typeof v === 'number' ? String(v) : ''),
    (next) => {
      if (next.trim() === '') return { ok: true, value: undefined };
      const n = Number(next);
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: s.args.notANumber(next) };
    },
  );
  const describedBy = [attrs['aria-describedby'], error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <input
        {...attrs}
        type="text"
        inputMode="decimal"
        autoComplete="off"
        value={text}
        aria-invalid={error !== null || !!invalid}
        aria-describedby={describedBy}
        onKeyDown={onKeyDown}
        onChange={(e) => onText(e.target.value)}
      />
      {error && (
        <FieldError role="alert" id={errorId}>
          {error}
        </FieldError>
      )}
    </>
  );
}

