/**
 * What a number field's text says: nothing (empty, which is not 0), a number, or a problem put
 * as a sentence that says what to type. A type="number" input reports '' both when it is empty
 * and when the browser cannot read what was typed ("1e", "-"): `badInput` (its
 * validity.badInput) tells the two apart.
 */
import { formStrings } from '../i18n/form-strings';

const s = formStrings.number;

export interface NumberBounds {
  min?: number;
  max?: number;
  /** A whole step (1, 5) asks for a whole number; a fraction (0.1) only sets the arrow keys' step. */
  step?: number;
  /** Empty is a problem; otherwise empty means "not set". */
  required?: boolean;
}

/** Decimal notation only: '0x10', 'Infinity' and '1_000' are not numbers a person means. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

const show = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 20 });

/** The number the text holds: undefined when empty, NaN when it is not a number. */
export function numberOf(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return DECIMAL.test(t) ? Number(t) : NaN;
}

/** Why the text is not an acceptable number, or undefined when it is (or is empty and not required). */
export function numberProblem(text: string, bounds: NumberBounds = {}, badInput = false): string | undefined {
  if (badInput) return s.notANumber('');
  const t = text.trim();
  const n = numberOf(t);
  if (n === undefined) return bounds.required ? s.required : undefined;
  if (!Number.isFinite(n)) return s.notANumber(t);
  if (bounds.step !== undefined && Number.isInteger(bounds.step) && !Number.isInteger(n)) return s.whole(t);
  const { min, max } = bounds;
  const low = min !== undefined && n < min;
  const high = max !== undefined && n > max;
  if (!low && !high) return undefined;
  if (min !== undefined && max !== undefined) return s.between(show(min), show(max), t);
  return low ? s.atLeast(show(min!), t) : s.atMost(show(max!), t);
}
