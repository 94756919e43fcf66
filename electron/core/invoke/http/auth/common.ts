/**
 * What every auth helper works on: a request (never mutated: each helper returns a new one,
 * so auth is applied afresh on each attempt) and the context secrets are resolved in.
 */
import { AppError } from '../../../../../shared/errors';
import type { SecretResolver } from '../../types';
import { RESERVED_HEADERS, type Sensitive } from '../request';

export interface AuthRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface AuthContext {
  /** The request's host name: secrets are resolved for it. */
  hostname: string;
  secrets: SecretResolver;
  /** Every secret or token used is added here, for redaction. */
  sensitive: Sensitive;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/** A secret for the request's host, recorded as sensitive. */
export function secretFor(ctx: AuthContext, name: string, hostname = ctx.hostname): string {
  const value = ctx.secrets.resolve(name, hostname);
  ctx.sensitive.add(value);
  ctx.sensitive.carried.add(name, value, ctx.secrets);
  return value;
}

export function withHeader(req: AuthRequest, name: string, value: string): AuthRequest {
  const headers: Record<string, string> = {};
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() !== lower) headers[k] = v;
  headers[name] = value;
  return { ...req, headers };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Refuses a header name that is not an HTTP token or that the transport owns. */
export function checkHeaderName(name: string, field: string): void {
  if (!TOKEN.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new AppError('VALIDATION_FAILED', `'${name}' cannot be used as a header name here`, { field });
  }
}
