/**
 * Reading a local function's arguments. The dispatcher validates them against the tool's
 * argSchema before the call, so these helpers only make a function safe when it is called
 * with odd values anyway (tests, another caller): a wrong type is a VALIDATION_FAILED, never
 * a crash or a silent coercion.
 */
import { AppError } from '../../../shared/errors';

export type Args = Record<string, unknown>;

/** The arguments as a plain record: anything else reads as no arguments. */
export function argsOf(args: unknown): Args {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Args) : {};
}

function invalid(name: string, what: string): AppError {
  return new AppError('VALIDATION_FAILED', `${name} must be ${what}`, { field: name });
}

export function optString(args: Args, name: string, maxLength = 16 * 1024 * 1024): string | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(name, 'a string');
  if (v.length > maxLength) throw invalid(name, `at most ${maxLength.toLocaleString('en-US')} characters long`);
  return v;
}

export function reqString(args: Args, name: string, maxLength?: number): string {
  const v = optString(args, name, maxLength);
  if (v === undefined) throw new AppError('VALIDATION_FAILED', `${name} is required`, { field: name });
  return v;
}

export function optInt(args: Args, name: string, min: number, max: number): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(name, 'an integer');
  if (v < min || v > max) throw invalid(name, `between ${min.toLocaleString('en-US')} and ${max.toLocaleString('en-US')}`);
  return v;
}

export function intArg(args: Args, name: string, min: number, max: number, fallback: number): number {
  return optInt(args, name, min, max) ?? fallback;
}

export function optNumber(args: Args, name: string): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(name, 'a finite number');
  return v;
}

export function boolArg(args: Args, name: string, fallback: boolean): boolean {
  const v = args[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw invalid(name, 'true or false');
  return v;
}

export function enumArg<T extends string>(args: Args, name: string, allowed: readonly T[], fallback: T): T {
  const v = args[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw invalid(name, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`);
  return v as T;
}

/** Throws CANCELLED when either signal has fired. */
export function checkAborted(...signals: (AbortSignal | undefined)[]): void {
  for (const s of signals) if (s?.aborted) throw new AppError('CANCELLED', 'the call was cancelled');
}

/** Quotes a user value for an error message, at most 120 characters. */
export function q(s: string): string {
  const shown = s.length > 120 ? `${s.slice(0, 120)}…` : s;
  let out = '';
  for (const c of shown) {
    const n = c.charCodeAt(0);
    out += n < 0x20 || n === 0x7f ? `\\u${n.toString(16).padStart(4, '0')}` : c;
  }
  return `'${out}'`;
}
