import type { z } from 'zod';
import { operations, isOpName, type OpName, type OpOutput, type OpParsedInput } from '../../shared/contract';
import { fail, toErrorInfo, type Result } from '../../shared/errors';
import { LIMITS, maxInputBytesOf } from '../../shared/limits';

/** Who is calling: transports fill this in; handlers may use it for auditing. */
export interface CallContext {
  transport: 'ipc' | 'websocket' | 'http' | 'direct';
  signal?: AbortSignal;
}

export type Handler<N extends OpName> = (
  input: OpParsedInput<N>,
  ctx: CallContext,
) => Promise<OpOutput<N>> | OpOutput<N>;

export type HandlerTable = { [N in OpName]: Handler<N> };

/**
 * Builds the handler table. The second constraint rejects keys the contract does not
 * name, so both a missing and an extra handler fail to compile.
 */
export function defineHandlers<T extends HandlerTable>(
  table: T & Record<Exclude<keyof T, OpName>, never>,
): HandlerTable {
  return table;
}

export interface Router {
  call(name: string, input: unknown, ctx?: CallContext): Promise<Result<unknown>>;
  /** For transports that receive text: enforces the size limit before parsing. */
  callJson(name: string, body: string, ctx?: CallContext): Promise<Result<unknown>>;
}

export function createRouter(handlers: HandlerTable): Router {
  async function call(name: string, input: unknown, ctx: CallContext = { transport: 'direct' }): Promise<Result<unknown>> {
    if (!isOpName(name)) {
      const shown = typeof name === 'string' ? name.slice(0, LIMITS.maxNameLength) : typeof name;
      return fail('VALIDATION_FAILED', `unknown operation '${shown}'`, { name: shown });
    }
    const def = operations[name];
    const parsed = (def.input as z.ZodType).safeParse(input === undefined ? {} : input);
    if (!parsed.success) {
      return fail('VALIDATION_FAILED', `invalid input for '${name}': ${summarise(parsed.error)}`, {
        issues: issuesOf(parsed.error),
      });
    }
    try {
      const handler = handlers[name] as (i: unknown, c: CallContext) => unknown;
      const value = await handler(parsed.data, ctx);
      const out = (def.output as z.ZodType).safeParse(value);
      if (!out.success) {
        console.error(`handler '${name}' returned a value outside the contract:`, out.error.issues);
        return fail('INTERNAL', `'${name}' produced an invalid result`);
      }
      return { ok: true, value: out.data };
    } catch (e) {
      return { ok: false, error: toErrorInfo(e, name) };
    }
  }

  async function callJson(name: string, body: string, ctx?: CallContext): Promise<Result<unknown>> {
    const max = maxInputBytesOf(name);
    if (Buffer.byteLength(body, 'utf8') > max) {
      return fail('PAYLOAD_TOO_LARGE', `input is larger than ${max} bytes`);
    }
    let input: unknown;
    try {
      input = body.trim() === '' ? {} : JSON.parse(body);
    } catch (e) {
      return fail('VALIDATION_FAILED', `input is not valid JSON: ${(e as Error).message}`);
    }
    return call(name, input, ctx);
  }

  return { call, callJson };
}

function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.slice(0, 50).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
}

function summarise(error: z.ZodError): string {
  return issuesOf(error)
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
}
