/**
 * What the OpenAPI import does with the shapes real documents use: optional inputs, wrapped
 * bodies, form styles, multipart files, binary and SSE responses, server variables, an API
 * key as the basic-auth user, descriptions, and the size budget.
 */
import { describe, expect, it } from 'vitest';
import { FullHttpSpecSchema } from '../../../shared/model/http-spec';
import { fillServerVariables } from '../../../shared/model/openapi-proposal';
import { ToolPutBodySchema } from '../../../shared/model/tool';
import type { OpenApiImport, OpenApiOperation } from '../../../shared/model/transfer';
import { buildRequest, Sensitive } from '../invoke/http/request';
import { ARG_SCHEMA_BUDGET_BYTES, parseOpenApi } from './openapi';

type Json = Record<string, unknown>;
const doc = (paths: Json, over: Json = {}) => JSON.stringify({ openapi: '3.0.3', info: { title: 'Acme', version: '1' }, servers: [{ url: 'https://api.acme.io/v1' }], paths, ...over });
const only = (r: OpenApiImport): OpenApiOperation => r.operations[0]!;
const http = (o: OpenApiOperation) => o.tool.http as Json;
const secrets = { resolve: (name: string) => `v-${name}`, values: () => [] };
const build = (tool: Json, args: Json) => buildRequest(FullHttpSpecSchema.parse(tool.http), args, secrets, new Sensitive());

describe('inputs', () => {
  it('a body wrapped in one optional object property (Asana data) keeps the wrapper; its properties are arguments and only given ones are sent', () => {
    const r = parseOpenApi(
      doc({
        '/tasks': {
          post: {
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'object', required: ['name'], properties: { gid: { type: 'string', readOnly: true }, name: { type: 'string' }, notes: { type: 'string' } } } } } } } },
            parameters: [{ name: 'opt_fields', in: 'query', schema: { type: 'string' } }],
            responses: {},
          },
        },
      }),
    );
    const o = only(r);
    expect(http(o).body).toEqual({ kind: 'json', template: { data: { name: '${name}', notes: '${notes?}' } } });
    expect(o.tool.argSchema).toMatchObject({ required: ['name'] });
    expect(o.inputs).toEqual({ document: 3, arguments: 3 });
    const req = build(o.tool, { name: 'Buy milk' });
    expect(JSON.parse(new TextDecoder().decode(req.body))).toEqual({ data: { name: 'Buy milk' } });
    expect(req.url).toBe('https://api.acme.io/v1/tasks');
  });

  it("form fields follow the document's style/explode (Stripe's nested line_items)", () => {
    const r = parseOpenApi(
      doc({
        '/checkout': {
          post: {
            requestBody: {
              content: {
                'application/x-www-form-urlencoded': {
                  schema: { type: 'object', properties: { mode: { type: 'string' }, line_items: { type: 'array', items: { type: 'object', properties: { price: { type: 'string' }, quantity: { type: 'integer' } } } } } },
                  encoding: { line_items: { style: 'deepObject', explode: true } },
                },
              },
            },
            responses: {},
          },
        },
      }),
    );
    const o = only(r);
    expect(http(o).body).toMatchObject({ kind: 'form', encoding: { line_items: { style: 'deepObject', explode: true } } });
    const req = build(o.tool, { mode: 'payment', line_items: [{ price: 'p1', quantity: 2 }] });
    expect(decodeURIComponent(new TextDecoder().decode(req.body))).toBe('mode=payment&line_items[0][price]=p1&line_items[0][quantity]=2');
  });

  it('a multipart body: binary properties are files (text or base64), the rest are fields', async () => {
    const r = parseOpenApi(
      doc({
        '/files': {
          post: {
            requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string' } } } } } },
            responses: {},
          },
        },
      }),
    );
    const o = only(r);
    expect(http(o).body).toEqual({ kind: 'multipart', fields: { file: '${file}', purpose: '${purpose?}' }, files: ['file'] });
    const req = build(o.tool, { file: { base64: Buffer.from('hello').toString('base64'), filename: 'h.txt' } });
    const form = await new Response(req.body, { headers: { 'content-type': req.headers['Content-Type']! } }).formData();
    expect(await (form.get('file') as File).text()).toBe('hello');
    expect(form.has('purpose')).toBe(false);
  });
});

describe('responses, descriptions, skipped methods', () => {
  const r = parseOpenApi(
    doc({
      '/img.png': { get: { operationId: 'getImage', responses: { '200': { description: 'x', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } } } } },
      '/stream': { post: { summary: 'Stream it', description: '', responses: { '200': { description: 'x', content: { 'text/event-stream': {} } } } } },
      '/any': { options: { responses: {} }, trace: { responses: {} } },
      '/speech': { post: { responses: { '200': { description: 'x', content: { 'application/octet-stream': {}, 'text/event-stream': {} } } } } },
    }),
  );

  it('a binary response is kept as bytes; an event stream is sse', () => {
    expect(r.operations[0]!.tool).toMatchObject({ http: { responseMode: 'binary' }, outputSchema: { type: 'object', properties: { base64: { type: 'string' } } } });
    expect(http(r.operations[1]!).responseMode).toBe('sse');
    // Audio bytes, or their event stream when asked: bytes.
    expect(http(r.operations.find((o) => o.path === '/speech')!).responseMode).toBe('binary');
  });

  it('an empty description falls back to the summary; no summary falls back to the operationId', () => {
    expect(r.operations[1]!.tool.description).toBe('Stream it');
    expect(r.operations[0]!.tool).toMatchObject({ displayName: 'getImage', description: 'getImage: GET /img.png' });
  });

  it('OPTIONS and TRACE are listed as skipped, with why', () => {
    expect(r.skipped).toEqual([
      { key: 'OPTIONS /any', reason: 'an HTTP tool cannot send OPTIONS requests' },
      { key: 'TRACE /any', reason: 'an HTTP tool cannot send TRACE requests' },
    ]);
  });
});

describe('servers and auth', () => {
  it('server variables stay as {name} with their default offered; the tool is refused until they are filled', () => {
    const r = parseOpenApi(doc({ '/a': { get: { responses: {} } } }, { servers: [{ url: 'https://{tenant}.acme.io/{v}', variables: { tenant: { default: 'demo', description: 'Your tenant' }, v: { default: 'v2', enum: ['v1', 'v2'] } } }] }));
    expect(r.serverVariables).toEqual([
      { name: 'tenant', default: 'demo', description: 'Your tenant' },
      { name: 'v', default: 'v2', enum: ['v1', 'v2'] },
    ]);
    expect(r.hostsProposal).toEqual(['{tenant}.acme.io']);
    const o = only(r);
    expect(http(o).urlTemplate).toBe('https://{tenant}.acme.io/{v}/a');
    expect(ToolPutBodySchema.safeParse(o.tool).error?.issues[0]?.message).toMatch(/fill in the server variables \{tenant\}, \{v\}/);
    expect(() => fillServerVariables(o.tool, { tenant: '', v: 'v1' })).toThrow(/fill in the server variable \{tenant\}/);
    expect(() => fillServerVariables(o.tool, { tenant: 'evil.com/x', v: 'v1' })).toThrow(/may hold only/);
    expect((fillServerVariables(o.tool, { tenant: 'mine', v: 'v1' }).http as Json).urlTemplate).toBe('https://mine.acme.io/v1/a');
  });

  it("a placeholder host (your-domain) becomes a variable without a default", () => {
    const r = parseOpenApi(doc({ '/a': { get: { responses: {} } } }, { servers: [{ url: 'https://your-domain.atlassian.net' }] }));
    expect(r.serverVariables).toEqual([expect.objectContaining({ name: 'your-domain' })]);
    expect(r.serverVariables[0]).not.toHaveProperty('default');
    expect(http(only(r)).urlTemplate).toBe('https://{your-domain}.atlassian.net/a');
  });

  it('basic auth whose description shows the key as the user name (api_key:) sends the key as the user', () => {
    const schemes = { basicAuth: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <base64 hash of `api_key:`>' }, plain: { type: 'http', scheme: 'basic' } };
    const r = parseOpenApi(doc({ '/a': { get: { security: [{ basicAuth: [] }], responses: {} } }, '/b': { get: { security: [{ plain: [] }], responses: {} } } }, { components: { securitySchemes: schemes } }));
    expect(http(r.operations[0]!).auth).toEqual({ kind: 'basic', username: '', usernameSecret: 'ACME_API_KEY' });
    expect(http(r.operations[1]!).auth).toEqual({ kind: 'basic', username: '', passwordSecret: 'ACME_PASSWORD' });
  });
});

describe('the size budget', () => {
  it('shortens descriptions first, then simplifies the largest schemas, and says so; every input stays an argument', () => {
    const long = 'word '.repeat(400);
    const big = { type: 'object', description: long, properties: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, { type: 'string', description: long }])) };
    const r = parseOpenApi(
      doc({ '/a': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { small: { type: 'string', description: 'short' }, big, big2: big } } } } }, responses: {} } } }),
    );
    const o = only(r);
    const schema = o.tool.argSchema as { properties: Record<string, Json> };
    expect(Buffer.byteLength(JSON.stringify(schema))).toBeLessThanOrEqual(ARG_SCHEMA_BUDGET_BYTES);
    expect(Object.keys(schema.properties)).toEqual(['small', 'big', 'big2']);
    expect(schema.properties.small).toEqual({ type: 'string', description: 'short' });
    const warning = o.warnings.find((w) => w.startsWith('size budget'))!;
    expect(warning).toMatch(/descriptions inside the arguments were shortened/);
    expect(o.inputs).toEqual({ document: 3, arguments: 3 });
  });
});
