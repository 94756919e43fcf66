/**
 * The REST API of the tool registry under `/tools`: each route is a thin mapping onto a
 * contract operation, so REST, RPC, WebSocket and IPC share one implementation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpName } from '../../../shared/contract';
import { HTTP_STATUS, fail } from '../../../shared/errors';
import type { Core } from '../../core/app';
import type { BodyResult } from './http';
import { send } from '../static-files';

type Params = Record<string, string>;

interface Route {
  method: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';
  pattern: RegExp;
  keys: string[];
  op: OpName;
  /** Builds the operation's input from the path, the query and the JSON body. */
  input(params: Params, query: URLSearchParams, body: unknown): unknown;
  /** Status for a successful answer (default 200). */
  created?: number;
  /** The only fields the body may have, when the body is merged with the path's keys (which it must not override). */
  bodyFields?: readonly string[];
}

function route(method: Route['method'], path: string, op: OpName, input: Route['input'], created?: number, bodyFields?: readonly string[]): Route {
  const keys: string[] = [];
  const source = path.replace(/\{(\w+)\}/g, (_m, k: string) => {
    keys.push(k);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}$`), keys, op, input, created, bodyFields };
}

/** A PATCH body is exactly `{"isEnabled": ...}`. */
const PATCH_FIELDS = ['isEnabled'] as const;
/** An invoke body (docs/rest-api.md): the arguments, and optionally the call's id and time limit. */
const INVOKE_FIELDS = ['args', 'invocationId', 'timeoutMs'] as const;
/** Body fields that would name another bundle or tool than the path does. */
const TARGET_FIELDS = new Set(['bundleId', 'bundleID', 'slug', 'toolSlug', 'version', 'id', 'toolId']);

/** The fields of `body` a route does not take, e.g. `bundleId` in a PATCH body (the path says which bundle). */
function unknownBodyFields(r: Route, body: unknown): string[] {
  if (!r.bodyFields || !body || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.keys(body).filter((k) => !r.bodyFields!.includes(k));
}

/** Why a body with `extra` is refused: the fields it may have, those it has besides, and who says the target. */
function unknownFieldsMessage(r: Route, extra: readonly string[]): string {
  const names = extra.map((k) => `'${k}'`).join(', ');
  const targets = extra.filter((k) => TARGET_FIELDS.has(k));
  const what = r.keys.includes('toolSlug') ? 'tool (bundle, slug and version)' : 'bundle';
  const why = targets.length ? `: the path says which ${what}, so ${targets.map((k) => `'${k}'`).join(', ')} cannot be given in the body` : '';
  return `invalid input for '${r.op}': the body may only have ${r.bodyFields!.map((k) => `'${k}'`).join(', ')}; unknown field(s) ${names}${why}`;
}

const bool = (q: URLSearchParams, k: string) => (q.has(k) ? q.get(k) : undefined);
const num = (q: URLSearchParams, k: string) => (q.has(k) ? q.get(k) : undefined);
/** `?tags=a,b` and `?tags=a&tags=b` both work; an empty value is no filter. */
const list = (q: URLSearchParams, k: string) => {
  const values = q.getAll(k).flatMap((v) => v.split(',')).filter(Boolean);
  return values.length ? values : undefined;
};
/** Like list(), but `?bundleIDs=` (present, empty) is the empty set of ids: it matches nothing. */
const ids = (q: URLSearchParams, k: string) => list(q, k) ?? (q.has(k) ? [] : undefined);
const obj = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { body });

const TOOL = '/tools/bundles/{bundleID}/tools/{toolSlug}/version/{version}';
const toolKey = (p: Params) => ({ bundleId: p.bundleID, slug: p.toolSlug, version: p.version });

export const ROUTES: Route[] = [
  route('GET', '/tools/bundles', 'bundles.list', (_p, q) => ({
    bundleIds: ids(q, 'bundleIDs'),
    includeDisabled: bool(q, 'includeDisabled'),
    includeDeleted: bool(q, 'includeDeleted'),
    pageSize: num(q, 'pageSize'),
    pageToken: q.get('pageToken') ?? undefined,
  })),
  route('GET', '/tools/bundles/{bundleID}', 'bundles.get', (p) => ({ bundleId: p.bundleID })),
  route('PUT', '/tools/bundles/{bundleID}', 'bundles.put', (p, _q, b) => ({ bundleId: p.bundleID, body: b })),
  route('PATCH', '/tools/bundles/{bundleID}', 'bundles.patch', (p, _q, b) => ({ ...obj(b), bundleId: p.bundleID }), undefined, PATCH_FIELDS),
  route('DELETE', '/tools/bundles/{bundleID}', 'bundles.delete', (p) => ({ bundleId: p.bundleID })),
  route('PUT', TOOL, 'tools.put', (p, _q, b) => ({ ...toolKey(p), body: b }), 201),
  route('PATCH', TOOL, 'tools.patch', (p, _q, b) => ({ ...obj(b), ...toolKey(p) }), undefined, PATCH_FIELDS),
  route('DELETE', TOOL, 'tools.delete', (p) => toolKey(p)),
  route('GET', TOOL, 'tools.get', (p) => toolKey(p)),
  route('POST', `${TOOL}/invoke`, 'tools.invoke', (p, _q, b) => ({ ...obj(b), ...toolKey(p) }), undefined, INVOKE_FIELDS),
  route('GET', '/tools/tools', 'tools.list', (_p, q) => ({
    tags: list(q, 'tags'),
    bundleIds: ids(q, 'bundleIDs'),
    includeDisabled: bool(q, 'includeDisabled'),
    pageSize: num(q, 'recommendedPageSize') ?? num(q, 'pageSize'),
    pageToken: q.get('pageToken') ?? undefined,
  })),
  route('GET', '/tools/tools/search', 'tools.search', (_p, q) => ({
    q: q.get('q') ?? '',
    includeDisabled: bool(q, 'includeDisabled'),
    pageSize: num(q, 'pageSize'),
    pageToken: q.get('pageToken') ?? undefined,
  })),
  // What the app found wrong in its data folder (as the app.problems operation).
  route('GET', '/tools/problems', 'app.problems', () => ({})),
];

/** Handles `/tools/...`; returns false for any other path. */
export function restRoutes(core: Core) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL, readBody: () => Promise<BodyResult>): Promise<boolean> => {
    if (url.pathname !== '/tools' && !url.pathname.startsWith('/tools/')) return false;
    const method = req.method ?? 'GET';
    const matches = ROUTES.filter((r) => r.pattern.test(url.pathname));
    if (matches.length === 0) {
      reply(res, 404, fail('NOT_FOUND', `no route ${url.pathname}`));
      return true;
    }
    const r = matches.find((m) => m.method === method);
    if (!r) {
      reply(res, 405, fail('VALIDATION_FAILED', `${method} is not allowed on ${url.pathname}; use ${matches.map((m) => m.method).join(', ')}`), {
        Allow: matches.map((m) => m.method).join(', '),
      });
      return true;
    }
    const m = r.pattern.exec(url.pathname)!;
    const params: Params = {};
    try {
      r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
    } catch {
      reply(res, 400, fail('VALIDATION_FAILED', 'the path is not valid percent-encoding'));
      return true;
    }
    let body: unknown = undefined;
    if (r.method === 'PUT' || r.method === 'PATCH' || r.method === 'POST') {
      const b = await readBody();
      if (!b.ok) {
        reply(res, b.status, b.error);
        return true;
      }
      try {
        body = b.text.trim() === '' ? {} : JSON.parse(b.text);
      } catch (e) {
        reply(res, 400, fail('VALIDATION_FAILED', `body is not valid JSON: ${(e as Error).message}`));
        return true;
      }
    }
    const extra = unknownBodyFields(r, body);
    if (extra.length > 0) {
      reply(
        res,
        400,
        fail('VALIDATION_FAILED', unknownFieldsMessage(r, extra), {
          issues: extra.map((k) => ({ path: `body.${k}`, message: 'unknown field' })),
        }),
      );
      return true;
    }
    const input = JSON.parse(JSON.stringify(r.input(params, url.searchParams, body))) as unknown;
    const result = await core.router.call(r.op, input, { transport: 'http' });
    reply(res, result.ok ? (r.created ?? 200) : HTTP_STATUS[result.error.code], result);
    return true;
  };
}

function reply(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), extra);
}
