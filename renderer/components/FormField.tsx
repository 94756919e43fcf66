import type { ReactNode } from 'react';

/** What a field's control takes: its id, and its help and error as its description. */
export interface FieldControlProps {
  id: string;
  'aria-describedby': string;
  'aria-invalid': boolean;
}

export interface FormFieldProps {
  /** The control's id; its help is `<id>-help`, its error `<id>-error`. */
  id: string;
  label: ReactNode;
  /** A label for screen readers only, where a legend already says it. */
  labelHidden?: boolean;
  help?: ReactNode;
  /** The refusal of this field, if any: shown under it, and the control is marked invalid. */
  error?: string;
  errorTestId?: string;
  /** The control (input, textarea, select), given the attributes that tie it to its label, help and error. */
  children: (control: FieldControlProps) => ReactNode;
}

/** One field of a form: its label, the control, its help, and its error under it. */
export function FormField({ id, label, labelHidden, help, error, errorTestId, children }: FormFieldProps) {
  return (
    <>
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined}>
        {label}
      </label>
      {children({ id, 'aria-describedby': `${id}-help ${id}-error`, 'aria-invalid': !!error })}
      {help && (
        <p id={`${id}-help`} className="help">
          {help}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert" data-testid={errorTestId}>
          {error}
        </p>
      )}
    </>
  );
}
