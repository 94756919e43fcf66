import { z } from 'zod';

/** Every error that crosses the contract carries one of these codes. */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'CONFLICT',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_IMPLEMENTED',
  'CANCELLED',
  'TIMEOUT',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorInfoSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/** An error a handler throws on purpose; the router turns it into an envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
  toInfo(): ErrorInfo {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string, details?: unknown): { ok: false; error: ErrorInfo } {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } };
}

/** HTTP status for each code, used by the REST and RPC transports. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_IMPLEMENTED: 501,
  CANCELLED: 499,
  TIMEOUT: 504,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/**
 * The wire form of any error: an AppError as it is; an AbortError as CANCELLED; anything else
 * INTERNAL, named by where it happened (and logged, since nobody planned for it).
 */
export function toErrorInfo(e: unknown, where: string): ErrorInfo {
  if (e instanceof AppError) return e.toInfo();
  if (e instanceof Error && e.name === 'AbortError') return { code: 'CANCELLED', message: 'cancelled' };
  console.error(`'${where}' failed:`, e);
  return { code: 'INTERNAL', message: `'${where}' failed: ${e instanceof Error ? e.message : String(e)}` };
}
