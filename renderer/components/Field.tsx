/**
 * A form's fields: `Field` ties a label, its control, a hint and an error together (ids,
 * aria-describedby, aria-invalid), `NumberField` is a Field for a number, and `FieldError` is
 * the one element that shows a refusal or a failure in the danger colour (`.field-error`):
 * under a field, or on its own for a whole form's or an action's failure.
 *
 *   <Field id="tool-slug" label="Slug" hint="letters, digits and '-'" error={errors.slug} className="field">
 *     {(control) => <input {...control} value={slug} onChange={...} />}
 *   </Field>
 */
import { useState, type HTMLAttributes, type MouseEventHandler, type ReactNode } from 'react';
import { numberProblem } from './number-text';

type ErrorTag = 'p' | 'span' | 'div' | 'ul' | 'li';

export interface FieldErrorProps extends HTMLAttributes<HTMLElement> {
  /** The element: a paragraph unless the text sits in a line (span) or is a list (ul). */
  as?: ErrorTag;
  'data-testid'?: string;
}

/**
 * A refusal or a failure, in the danger colour. Say how it is announced where it is used:
 * role="alert" for the outcome of something the person just did (a failed save), none (or
 * aria-live="polite") for a field's error that follows the typing, which aria-describedby reads.
 */
export function FieldError({ as: Tag = 'p', className, ...rest }: FieldErrorProps) {
  return <Tag {...rest} className={className ? `field-error ${className}` : 'field-error'} />;
}

/** What a field's control takes: its id, and its hint and error as its description. */
export interface FieldControlProps {
  id: string;
  'aria-describedby': string | undefined;
  'aria-invalid': boolean;
}

export interface FieldProps {
  /** The control's id; its hint is `<id>-help`, its error `<id>-error`. */
  id: string;
  label: ReactNode;
  /** A label for screen readers only, where a legend already says it. */
  labelHidden?: boolean;
  hint?: ReactNode;
  /** The refusal of this field, if any (several are joined): shown under it, and the control is marked invalid. */
  error?: string | readonly string[];
  errorTestId?: string;
  /**
   * How a new error is announced: 'polite' (the default: when the typing pauses) or 'alert'
   * (at once, for an error that comes from a save).
   */
  announce?: 'polite' | 'alert';
  /** More ids that describe the control (a note beside the hint), read after the hint. */
  describedBy?: string;
  /** Wraps the parts in a <div> of this class ('field'); without it they go straight into the parent's grid. */
  className?: string;
  onLabelClick?: MouseEventHandler<HTMLLabelElement>;
  /** The control (input, textarea, select, editor), given the attributes that tie it to its label, hint and error. */
  children: (control: FieldControlProps) => ReactNode;
}

/** One field of a form: its label, the control, its hint, and its error under it. */
export function Field({ id, label, labelHidden, hint, error, errorTestId, announce = 'polite', describedBy, className, onLabelClick, children }: FieldProps) {
  const message = typeof error === 'string' ? error : error?.join(' ');
  const hintId = `${id}-help`;
  const errorId = `${id}-error`;
  const ids = [hint ? hintId : undefined, describedBy, message ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  const parts = (
    <>
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined} onClick={onLabelClick}>
        {label}
      </label>
      {children({ id, 'aria-describedby': ids, 'aria-invalid': !!message })}
      {hint && (
        <p id={hintId} className="help">
          {hint}
        </p>
      )}
      {message && (
        <FieldError id={errorId} data-testid={errorTestId} {...(announce === 'alert' ? { role: 'alert' } : { 'aria-live': 'polite' })}>
          {message}
        </FieldError>
      )}
    </>
  );
  return className ? <div className={className}>{parts}</div> : parts;
}

export interface NumberFieldProps extends Omit<FieldProps, 'children' | 'onLabelClick'> {
  /** The text as typed: '' is "not set", which is not 0. */
  value: string;
  onChange: (text: string) => void;
  min?: number;
  max?: number;
  /** The arrow keys' step; a whole step asks for a whole number. */
  step?: number;
  /** Empty is refused. */
  required?: boolean;
  placeholder?: string;
  disabled?: boolean;
  testId?: string;
}

/**
 * A number: a type="number" input (the arrow keys step it, and a form that validates refuses
 * what is out of bounds), and once it has been edited, a sentence that says what to type when
 * the text is not a number within the bounds. An `error` given (the server's refusal) is shown
 * instead of that sentence.
 */
export function NumberField({ value, onChange, min, max, step, required, placeholder, disabled, testId, error, ...field }: NumberFieldProps) {
  const [edited, setEdited] = useState(false);
  const [badInput, setBadInput] = useState(false);
  const own = edited ? numberProblem(value, { min, max, step, required }, badInput) : undefined;
  const given = error !== undefined && error.length > 0;
  return (
    // The sentence follows the typing: read out when it pauses, not at each key.
    <Field {...field} error={given ? error : own} announce={given ? field.announce : 'polite'}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode={step !== undefined && Number.isInteger(step) ? 'numeric' : 'decimal'}
          data-testid={testId}
          min={min}
          max={max}
          step={step}
          required={required}
          placeholder={placeholder}
          disabled={disabled}
          value={value}
          onChange={(e) => {
            setEdited(true);
            setBadInput(e.target.validity?.badInput === true);
            onChange(e.target.value);
          }}
        />
      )}
    </Field>
  );
}
