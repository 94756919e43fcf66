/**
 * The OpenAPI import on eight real, vendor-published documents (../shared/openapi-real, see
 * SOURCES.md there): each is read once; per document, every parameter and body property
 * of every operation must be an argument of its tool, and every write tool sends, to a
 * local echo server through the real HTTP transport, a body that carries its inputs.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { toArgName } from '../../../shared/model/tool-naming';
import { FullHttpSpecSchema } from '../../../shared/model/http-spec';
import { fillServerVariables } from '../../../shared/model/openapi-proposal';
import { ToolPutBodySchema } from '../../../shared/model/tool';
import type { OpenApiImport, OpenApiOperation } from '../../../shared/model/transfer';
import { OAuth2TokenCache } from '../invoke/http/auth/oauth2';
import { executeHttpTool } from '../invoke/http/http-tool';
import { RateLimiter } from '../invoke/http/rate-limit';
import { startHttpServer, type SeenRequest, type TestServer } from '../invoke/http/testing/servers';
import { HttpTransport } from '../invoke/http/transport';
import { schemaCompileViolation } from '../bundles/schema-check';
import { parseOpenApi } from './openapi';

const DIR = path.resolve(__dirname, '../../../../shared/openapi-real');
const DOCS = ['github.json', 'jira-platform.json', 'stripe.yaml', 'twilio-api-v2010.json', 'box.json', 'openai.yaml', 'discord.json', 'asana.yaml'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- an independent reading of the document's inputs ---------------------------------------

function resolve(doc: Json, v: unknown): unknown {
  for (let i = 0; i < 20 && isObj(v) && typeof v.$ref === 'string'; i++) {
    v = (v.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((cur, k) => (isObj(cur) ? cur[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  }
  return v;
}

/** Top-level property names of an object schema (allOf merged), read-only ones left out. */
function propertyNames(doc: Json, schema: unknown, depth = 0): string[] {
  const s = resolve(doc, schema);
  if (!isObj(s) || depth > 8) return [];
  const names: string[] = [];
  if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) if ((resolve(doc, v) as Json | undefined)?.readOnly !== true) names.push(k);
  if (Array.isArray(s.allOf)) for (const part of s.allOf) for (const n of propertyNames(doc, part, depth + 1)) if (!names.includes(n)) names.push(n);
  return names;
}

interface DocInputs {
  params: { name: string; in: string }[];
  body: string[];
  /** The body's wrapper property (Asana's `data`). */
  wrapper?: string;
  media?: string;
}

function inputsOf(doc: Json, pathItem: Json, op: Json): DocInputs {
  const params = new Map<string, { name: string; in: string }>();
  for (const list of [pathItem.parameters, op.parameters]) {
    for (const raw of Array.isArray(list) ? list : []) {
      const p = resolve(doc, raw) as Json;
      if (p.in === 'header' && ['accept', 'content-type', 'authorization'].includes(String(p.name).toLowerCase())) continue;
      params.set(`${String(p.in)} ${String(p.name)}`, { name: String(p.name), in: String(p.in) });
    }
  }
  const rb = resolve(doc, op.requestBody) as Json | undefined;
  const content = isObj(rb?.content) ? rb.content : {};
  const media = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'].find((t) => Object.keys(content).some((k) => k.split(';')[0] === t)) ?? Object.keys(content).find((k) => /json/.test(k));
  let body: string[] = [];
  let wrapper: string | undefined;
  if (media) {
    const schema = (content[Object.keys(content).find((k) => k.split(';')[0] === media)!] as Json).schema;
    body = propertyNames(doc, schema);
    if (body.length === 1 && !media.includes('form')) {
      const inner = propertyNames(doc, ((resolve(doc, schema) as Json).properties as Json)[body[0]!]);
      if (inner.length) {
        wrapper = body[0];
        body = inner;
      }
    }
    const shape = resolve(doc, schema) as Json | undefined;
    const emptyObject = shape?.type === 'object' && !isObj(shape.additionalProperties) && !shape.allOf && !shape.anyOf && !shape.oneOf;
    if (!body.length && !(media.includes('form') && emptyObject)) body = ['body'];
  }
  return { params: [...params.values()], body, ...(wrapper ? { wrapper } : {}), ...(media ? { media } : {}) };
}

// ---- sample arguments from an argSchema ---------------------------------------------------

function sample(schema: unknown, depth = 0): unknown {
  const s = isObj(schema) ? schema : {};
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((x) => x !== null && x !== '') ?? s.enum[0];
  if ('const' in s) return s.const;
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return sample((s[k] as unknown[])[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return depth > 3 ? [] : [sample(s.items, depth + 1)];
  if (type === 'object' || isObj(s.properties)) {
    const out: Json = {};
    if (depth <= 3 && isObj(s.properties)) for (const [k, v] of Object.entries(s.properties).slice(0, 3)) out[k] = sample(v, depth + 1);
    if (!Object.keys(out).length) out.k = 'x1';
    return out;
  }
  return 'x1';
}

// ---- the run -----------------------------------------------------------------------------

interface Row {
  doc: string;
  operations: number;
  inputs: number;
  arguments: number;
  writes: number;
  writesWithBody: number;
  /** Write tools whose body the document does not describe in a form the import can build. */
  byHand: string[];
  skipped: string[];
}

const rows: Row[] = [];
const loaded = new Map<string, { doc: Json; result: OpenApiImport }>();

/** Each document is read once: by the import, and by the test's own reading of its inputs. */
function load(file: string): { doc: Json; result: OpenApiImport } {
  let hit = loaded.get(file);
  if (!hit) {
    const text = readFileSync(path.join(DIR, file), 'utf8');
    hit = { doc: (file.endsWith('.json') ? JSON.parse(text) : parseYaml(text)) as Json, result: parseOpenApi(text) };
    loaded.set(file, hit);
  }
  return hit;
}
let echo: TestServer;

beforeAll(async () => {
  echo = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
afterAll(async () => {
  await echo?.close();
  if (process.env.OPENAPI_REPORT) console.log(JSON.stringify(rows, null, 1));
});

/** The tool aimed at the echo server: server variables filled, the origin and base path replaced. */
function atEcho(o: OpenApiOperation, result: OpenApiImport): Json {
  const filled = fillServerVariables(o.tool, Object.fromEntries(result.serverVariables.map((v) => [v.name, v.default ?? 'acme'])));
  const http = filled.http as Json;
  const url = String(http.urlTemplate).replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${echo.port}`);
  const auth = (http.auth as Json).kind === 'oauth2' ? { kind: 'none' } : http.auth;
  return { ...filled, http: { ...http, urlTemplate: url, auth } };
}

async function send(tool: Json): Promise<SeenRequest> {
  const before = echo.requests.length;
  const spec = FullHttpSpecSchema.parse(tool.http);
  const props = (tool.argSchema as { properties: Record<string, unknown> }).properties;
  const args = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, sample(s)]));
  await executeHttpTool({ ...spec, responseMode: 'json', limits: { ...spec.limits, maxRetries: 0, maxSentBytes: 4 * 1024 * 1024 } }, args, {
    transport: new HttpTransport(),
    allowedHosts: [`127.0.0.1:${echo.port}`],
    secrets: { resolve: (name) => `k-${name}`, values: () => [] },
    redact: (t) => t,
    signal: new AbortController().signal,
    rateLimiter: new RateLimiter(),
    toolId: 't',
    tokenCache: new OAuth2TokenCache(),
  });
  expect(echo.requests.length).toBe(before + 1);
  return echo.requests.at(-1)!;
}

/** The names the request's body carries at its top level (or inside the wrapper). */
async function bodyNames(seen: SeenRequest, wrapper?: string): Promise<string[]> {
  const type = String(seen.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) {
    const v = JSON.parse(seen.body.toString()) as unknown;
    const top = wrapper && isObj(v) ? v[wrapper] : v;
    return isObj(top) ? Object.keys(top) : ['body'];
  }
  if (type.startsWith('application/x-www-form-urlencoded')) return [...new Set([...new URLSearchParams(seen.body.toString()).keys()].map((k) => k.replace(/\[.*$/, '')))];
  if (type.startsWith('multipart/form-data')) return [...new Set((await new Response(seen.body, { headers: { 'content-type': type } }).formData()).keys())];
  return seen.body.length ? ['body'] : [];
}

describe.skipIf(!existsSync(DIR))('eight real OpenAPI documents', () => {
  for (const file of DOCS) {
    it(file, { timeout: 60_000 }, async () => {
      const { doc, result } = load(file);
      const row: Row = { doc: file, operations: result.operations.length, inputs: 0, arguments: 0, writes: 0, writesWithBody: 0, byHand: [], skipped: result.skipped.map((s) => `${s.key}: ${s.reason}`) };
      rows.push(row);

      // Every operation of the document is proposed, or listed as skipped.
      const keys = Object.entries(doc.paths as Json).flatMap(([p, item]) => Object.keys(item as Json).filter((m) => METHODS.includes(m) || m === 'options' || m === 'trace').map((m) => `${m.toUpperCase()} ${p}`));
      expect([...result.operations.map((o) => o.key), ...result.skipped.map((s) => s.key)].sort()).toEqual(keys.sort());
      for (const s of result.skipped) expect(s.key).toMatch(/^(OPTIONS|TRACE) /);

      for (const o of result.operations) {
        const pathItem = (doc.paths as Json)[o.path] as Json;
        const op = pathItem[o.method.toLowerCase()] as Json;
        const want = inputsOf(doc, pathItem, op);
        const filled = atEcho(o, result);
        // Valid once its server variables are filled; its argSchema compiles.
        const checked = ToolPutBodySchema.safeParse(filled);
        expect(checked.success, `${o.key}: ${JSON.stringify(checked.error?.issues[0])}`).toBe(true);
        // Compiling costs ~50 ms a schema: every 8th here (the store compiles each one on save).
        if (result.operations.indexOf(o) % 8 === 0) expect(schemaCompileViolation(o.tool.argSchema, 'argSchema'), o.key).toBeNull();
        expect(o.tool.description, `${o.key} has a description`).not.toBe('');

        // Arguments against the document's inputs: every parameter and body property is one.
        const http = o.tool.http as Json;
        const props = Object.keys((o.tool.argSchema as { properties: Json }).properties);
        const dropped = o.warnings.filter((w) => /left out to keep within the size budget|cannot be set by a tool|cookie parameter/.test(w)).join('\n');
        const byHand = o.warnings.some((w) => /add (it|its fields) by hand/.test(w));
        for (const p of want.params) {
          const arg = toArgName(p.name);
          if (dropped.includes(p.name)) continue;
          expect(props.some((n) => n === arg || n.startsWith(`${arg}_`)), `${o.key}: ${p.in} ${p.name}`).toBe(true);
          if (p.in === 'query') expect(Object.keys(http.query as Json), `${o.key}: query ${p.name}`).toContain(p.name);
          if (p.in === 'header') expect(Object.keys(http.headers as Json), `${o.key}: header ${p.name}`).toContain(p.name);
        }
        const bodyTemplate = JSON.stringify((http.body as Json | undefined) ?? {});
        for (const name of want.body) {
          if (dropped.includes(name) || byHand || o.method === 'GET' || o.method === 'HEAD') continue;
          expect(bodyTemplate, `${o.key}: body ${name}`).toContain(`"${name === 'body' ? '${body' : name}`);
        }
        row.inputs += o.inputs.document;
        row.arguments += o.inputs.arguments;
        expect(o.inputs.document, o.key).toBe(want.params.length + (o.method === 'GET' || o.method === 'HEAD' ? 0 : want.body.length));

        // Each write tool sends its inputs in the body.
        if (o.method !== 'GET' && o.method !== 'HEAD' && want.body.length) {
          row.writes++;
          if (byHand) {
            row.byHand.push(o.key);
            continue;
          }
          const seen = await send(filled);
          const names = await bodyNames(seen, want.wrapper);
          if (want.body.length === 1 && want.body[0] === 'body') {
            expect(seen.body.length, `${o.key} sends a body`).toBeGreaterThan(0);
            row.writesWithBody++;
            continue;
          }
          if (want.wrapper) expect(Object.keys(JSON.parse(seen.body.toString()) as Json), o.key).toEqual([want.wrapper]);
          const expected = want.body.filter((n) => !dropped.includes(n));
          for (const n of expected) {
            if (want.media === 'application/x-www-form-urlencoded' && isObj(((http.body as Json).encoding as Json | undefined)?.[n]) && ((http.body as { encoding: Record<string, Json> }).encoding[n]!.style === 'form')) continue;
            expect(names, `${o.key} (${want.media}) carries ${n}`).toContain(n);
          }
          if (seen.body.length > 2) row.writesWithBody++;
        }
      }
      expect(row.writesWithBody).toBe(row.writes - row.byHand.length);
    });
  }

  it('Twilio send-SMS sends To, From and Body in its form body, with the account in basic auth', async () => {
    const result = load('twilio-api-v2010.json').result;
    const o = result.operations.find((x) => x.key === 'POST /2010-04-01/Accounts/{AccountSid}/Messages.json')!;
    const seen = await send(atEcho(o, result));
    const form = new URLSearchParams(seen.body.toString());
    for (const k of ['To', 'From', 'Body']) expect(form.get(k)).toBe('x1');
    expect(seen.url).toBe('/2010-04-01/Accounts/x1/Messages.json');
  });

  it('Stripe: nested line_items in a[b]=c form, and the API key as the basic-auth user name', async () => {
    const result = load('stripe.yaml').result;
    const o = result.operations.find((x) => x.key === 'POST /v1/checkout/sessions')!;
    expect((o.tool.http as Json).auth).toEqual({ kind: 'basic', username: '', usernameSecret: 'STRIPE_API_KEY' });
    const seen = await send(atEcho(o, result));
    const keys = [...new URLSearchParams(seen.body.toString()).keys()];
    expect(keys).toContain('line_items[0][price]');
    expect(keys).toContain('expand[0]');
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from('k-STRIPE_API_KEY:').toString('base64')}`);
    // A query array with style deepObject: expand[0]=...
    const list = result.operations.find((x) => x.key === 'GET /v1/charges')!;
    expect((list.tool.http as Json).queryEncoding).toMatchObject({ expand: { style: 'deepObject', explode: true } });
    const got = await send(atEcho(list, result));
    expect(decodeURIComponent(got.url)).toContain('expand[0]=x1');
  });

  it('Jira: the placeholder host becomes a server variable that must be filled', () => {
    const result = load('jira-platform.json').result;
    expect(result.serverVariables).toEqual([expect.objectContaining({ name: 'your-domain' })]);
    expect(result.serverVariables[0]!.default).toBeUndefined();
    expect(result.hostsProposal).toEqual(['{your-domain}.atlassian.net']);
    const o = result.operations[0]!;
    expect(String((o.tool.http as Json).urlTemplate)).toMatch(/^https:\/\/\{your-domain\}\.atlassian\.net\//);
    const refused = ToolPutBodySchema.safeParse(o.tool);
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toMatch(/fill in the server variable \{your-domain\}/);
    expect(ToolPutBodySchema.safeParse(fillServerVariables(o.tool, { 'your-domain': 'acme' })).success).toBe(true);
  });

  it('Box: OPTIONS are listed as skipped; a download answers bytes; uploads are multipart with a file part', () => {
    const result = load('box.json').result;
    expect(result.skipped.map((s) => s.key).every((k) => k.startsWith('OPTIONS '))).toBe(true);
    expect(result.skipped).toHaveLength(2);
    const download = result.operations.find((x) => x.key === 'GET /files/{file_id}/content')!;
    expect((download.tool.http as Json).responseMode).toBe('binary');
    const upload = result.operations.find((x) => x.key === 'POST /files/content')!;
    expect((upload.tool.http as Json).urlTemplate).toMatch(/^https:\/\/upload\.box\.com\//);
    expect((upload.tool.http as Json).body).toMatchObject({ kind: 'multipart', files: ['file'] });
  });

  it('Discord: operations without a summary or description get one from their operationId', () => {
    const result = load('discord.json').result;
    for (const o of result.operations) expect(String(o.tool.description).length).toBeGreaterThan(0);
  });
});
