import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { AppError } from '../../../shared/errors';
import { ToolPutBodySchema } from '../../../shared/model/tool';
import type { OpenApiImport, OpenApiOperation } from '../../../shared/model/transfer';
import { schemaCompileViolation } from '../bundles/schema-check';
import { newId, openStore } from '../bundles/testing/fixtures';
import { useTempDirs } from '../testing/temp-dir';
import { fillServerVariables } from '../../../shared/model/openapi-proposal';
import { MAX_OPENAPI_BYTES, parseOpenApi } from './openapi';

const tempDir = useTempDirs();

const PETSTORE_YAML = `
openapi: "3.0.3"
info:
  title: Swagger Petstore
  version: 1.0.0
servers:
  - url: https://petstore.example.com/{version}
    variables:
      version:
        default: v1
        enum: [v1, v2]
  - url: https://backup.example.com:8443/v1/
security:
  - api_key: []
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      tags: [pets, Read Only]
      parameters:
        - name: limit
          in: query
          description: How many items to return at one time (max 100)
          required: false
          schema: { type: integer, format: int32, maximum: 100 }
        - name: status
          in: query
          required: true
          description: Status values to filter by
          schema: { type: string, enum: [available, pending, sold] }
        - name: X-Request-ID
          in: header
          required: true
          schema: { type: string, format: uuid }
        - name: Accept
          in: header
          required: true
          schema: { type: string }
      responses:
        "200":
          description: A paged array of pets
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Pets" }
    post:
      operationId: createPet
      summary: Create a pet
      requestBody:
        $ref: "#/components/requestBodies/PetBody"
      responses:
        "201": { description: Null response }
  /pets/{petId}:
    parameters:
      - $ref: "#/components/parameters/PetId"
    get:
      operationId: showPetById
      summary: Info for a specific pet
      responses:
        "200":
          description: Expected response to a valid request
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Pet" }
    delete:
      operationId: deletePet
      security:
        - bearerAuth: []
      responses:
        "204": { description: Deleted }
    options:
      responses:
        "200": { description: CORS }
  /pets/{petId}/photo:
    put:
      operationId: upload.Photo!
      parameters:
        - name: petId
          in: path
          required: true
          schema: { type: string }
      requestBody:
        content:
          multipart/form-data:
            schema: { type: object }
      responses:
        "200":
          description: ok
          content:
            text/plain:
              schema: { type: string }
components:
  parameters:
    PetId:
      name: petId
      in: path
      required: true
      description: The id of the pet to retrieve
      schema: { type: integer, format: int64, minimum: 1 }
  requestBodies:
    PetBody:
      required: true
      content:
        application/json:
          schema: { $ref: "#/components/schemas/NewPet" }
  schemas:
    NewPet:
      type: object
      required: [name, owner]
      properties:
        name: { type: string, maxLength: 100, example: Rex }
        tag: { type: string, nullable: true }
        owner: { $ref: "#/components/schemas/Owner" }
    Pet:
      allOf:
        - $ref: "#/components/schemas/NewPet"
        - type: object
          required: [id]
          properties:
            id: { type: integer, format: int64 }
    Pets:
      type: array
      items: { $ref: "#/components/schemas/Pet" }
    Owner:
      type: object
      required: [name]
      properties:
        name: { type: string }
        age: { type: integer, minimum: 0, exclusiveMinimum: true }
        code: { type: string, pattern: "(?i)^[a-z]+$" }
        pets:
          type: array
          items: { $ref: "#/components/schemas/Pet" }
  securitySchemes:
    api_key:
      type: apiKey
      name: X-Api-Key
      in: header
    bearerAuth:
      type: http
      scheme: bearer
`;

function op(result: OpenApiImport, key: string): OpenApiOperation {
  const found = result.operations.find((o) => o.key === key);
  if (!found) throw new Error(`no operation ${key} in ${result.operations.map((o) => o.key).join(', ')}`);
  return found;
}

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

/** The proposal with its server variables filled with their defaults (or 'acme'). */
function filled(result: OpenApiImport, o: OpenApiOperation): Record<string, unknown> {
  return fillServerVariables(o.tool, Object.fromEntries(result.serverVariables.map((v) => [v.name, v.default ?? 'acme'])));
}

function expectValid(result: OpenApiImport): void {
  for (const o of result.operations) {
    const checked = ToolPutBodySchema.safeParse(filled(result, o));
    expect(checked.success, `${o.key}: ${JSON.stringify(checked.error?.issues)}`).toBe(true);
    expect(schemaCompileViolation(o.tool.argSchema, 'argSchema'), o.key).toBeNull();
  }
}

describe('a petstore document', () => {
  const fromYaml = parseOpenApi(PETSTORE_YAML);

  it('reads YAML and JSON alike', async () => {
    const { parse } = await import('yaml');
    const asJson = parseOpenApi(JSON.stringify(parse(PETSTORE_YAML)));
    expect(asJson).toEqual(fromYaml);
    expect(parseOpenApi(toYaml(parse(PETSTORE_YAML)))).toEqual(fromYaml);
  });

  it('proposes one tool per operation with the title, servers and hosts', () => {
    expect(fromYaml.title).toBe('Swagger Petstore');
    expect(fromYaml.version).toBe('1.0.0');
    expect(fromYaml.servers).toEqual(['https://petstore.example.com/{version}', 'https://backup.example.com:8443/v1']);
    expect(fromYaml.serverVariables).toEqual([{ name: 'version', default: 'v1', enum: ['v1', 'v2'] }]);
    expect(fromYaml.hostsProposal).toEqual(['petstore.example.com', 'backup.example.com:8443']);
    expect(fromYaml.skipped).toEqual([{ key: 'OPTIONS /pets/{petId}', reason: 'an HTTP tool cannot send OPTIONS requests' }]);
    expect(fromYaml.operations.map((o) => [o.key, o.slug])).toEqual([
      ['GET /pets', 'list-pets'],
      ['POST /pets', 'create-pet'],
      ['GET /pets/{petId}', 'show-pet-by-id'],
      ['DELETE /pets/{petId}', 'delete-pet'],
      ['PUT /pets/{petId}/photo', 'upload-photo'],
    ]);
    expectValid(fromYaml);
  });

  it('GET /pets: query and header parameters become arguments, optional ones as ${name?}', () => {
    const o = op(fromYaml, 'GET /pets');
    expect(o.summary).toBe('List all pets');
    expect(o.tool).toMatchObject({
      displayName: 'List all pets',
      tags: ['pets', 'read-only'],
      type: 'http',
      outputSchema: {},
      http: {
        method: 'GET',
        urlTemplate: 'https://petstore.example.com/{version}/pets',
        query: { limit: '${limit?}', status: '${status}' },
        headers: { 'X-Request-ID': '${X-Request-ID}' },
        auth: { kind: 'apiKey', in: 'header', name: 'X-Api-Key', secret: 'EXAMPLE_API_KEY' },
        responseMode: 'json',
      },
    });
    expect(o.tool.argSchema).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', format: 'int32', maximum: 100, description: 'How many items to return at one time (max 100)' },
        status: { type: 'string', enum: ['available', 'pending', 'sold'], description: 'Status values to filter by' },
        'X-Request-ID': { type: 'string', format: 'uuid' },
      },
      required: ['status', 'X-Request-ID'],
      additionalProperties: false,
    });
    expect(o.inputs).toEqual({ document: 3, arguments: 3 });
  });

  it('POST /pets: the JSON body template holds every top-level field, optional ones as ${name?}; $refs are inlined and cycles cut', () => {
    const o = op(fromYaml, 'POST /pets');
    expect(o.tool.http).toMatchObject({ method: 'POST', body: { kind: 'json', template: { name: '${name}', tag: '${tag?}', owner: '${owner}' } }, responseMode: 'text' });
    expect(o.tool.argSchema).toMatchObject({ required: ['name', 'owner'] });
    const props = (o.tool.argSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.name).toEqual({ type: 'string', maxLength: 100, examples: ['Rex'] });
    expect(props.owner).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, age: { type: 'integer', exclusiveMinimum: 0 }, pets: { type: 'array', items: { allOf: [expect.objectContaining({ properties: expect.objectContaining({ owner: {} }) }), expect.any(Object)] } } },
    });
    expect(props.owner!.properties).not.toHaveProperty('code.pattern');
    expect(o.warnings.join('\n')).toMatch(/recursive schema #\/components\/schemas\/Owner was cut/);
    expect(o.warnings.join('\n')).toMatch(/pattern "\(\?i\)\^\[a-z\]\+\$" is not a JavaScript regular expression/);
  });

  it('GET /pets/{petId}: the path parameter from the path item, with its schema and description', () => {
    const o = op(fromYaml, 'GET /pets/{petId}');
    expect(o.tool.http).toMatchObject({ urlTemplate: 'https://petstore.example.com/{version}/pets/${petId}', query: {}, headers: {} });
    expect(o.tool.argSchema).toMatchObject({ properties: { petId: { type: 'integer', format: 'int64', minimum: 1, description: 'The id of the pet to retrieve' } }, required: ['petId'] });
  });

  it("DELETE: the operation's own security wins", () => {
    expect(op(fromYaml, 'DELETE /pets/{petId}').tool.http).toMatchObject({ auth: { kind: 'bearer', secret: 'EXAMPLE_TOKEN' }, responseMode: 'text' });
  });

  it('a multipart body without properties is left out with a warning; a text response answers as text', () => {
    const o = op(fromYaml, 'PUT /pets/{petId}/photo');
    expect(o.tool.http).not.toHaveProperty('body');
    expect(o.tool).toMatchObject({ outputSchema: { type: 'string' }, http: { responseMode: 'text' } });
    expect(o.warnings.join('\n')).toMatch(/multipart body has no properties: add its fields by hand/);
  });

  it('every proposal can be saved in a real store', async () => {
    const f = await openStore(path.join(await tempDir(), 'data'));
    const bundleId = newId();
    await f.store.putBundle(bundleId, { slug: 'petstore', displayName: 'Petstore', description: '', isEnabled: true });
    for (const o of fromYaml.operations) await f.store.putTool(bundleId, o.slug, '1', filled(fromYaml, o));
    expect(f.store.toolsOf(bundleId).map((t) => t.slug).sort()).toEqual(fromYaml.operations.map((o) => o.slug).sort());
  });
});

describe('more shapes', () => {
  const doc = (over: Record<string, unknown>) => JSON.stringify({ openapi: '3.1.0', info: { title: 'Acme API', version: '2' }, ...over });

  it('no servers: a placeholder host and a warning', () => {
    const r = parseOpenApi(doc({ servers: [{ url: '/api' }], paths: { '/a': { get: { responses: { '200': { description: 'x' } } } } } }));
    expect(r.servers).toEqual([]);
    expect(r.hostsProposal).toEqual([]);
    expect(r.operations[0]!.tool.http).toMatchObject({ urlTemplate: 'https://example.invalid/a' });
    expect(r.operations[0]!.slug).toBe('get-a');
    expect(r.operations[0]!.warnings.join()).toMatch(/no absolute http\(s\) server/);
    expectValid(r);
  });

  it('security: oauth2 client credentials (relative token URL), basic, an API key in a cookie or query', () => {
    const r = parseOpenApi(
      doc({
        servers: [{ url: 'https://api.acme.io/v2' }],
        components: {
          securitySchemes: {
            oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: { read: 'r' } } } },
            basic: { type: 'http', scheme: 'Basic' },
            session: { type: 'apiKey', in: 'cookie', name: 'sid' },
            key: { type: 'apiKey', in: 'query', name: 'api_key' },
            mystery: { type: 'mutualTLS' },
          },
        },
        paths: {
          '/o': { get: { security: [{ oauth: ['read', 'write'] }], responses: {} } },
          '/b': { get: { security: [{ basic: [] }], responses: {} } },
          '/c': { get: { security: [{ session: [] }], parameters: [{ name: 'theme', in: 'cookie', required: true, schema: { type: 'string' } }], responses: {} } },
          '/q': { get: { security: [{ mystery: [] }, { key: [] }], responses: {} } },
          '/m': { get: { security: [{ mystery: [] }], responses: {} } },
          '/n': { get: { security: [{}], responses: {} } },
        },
      }),
    );
    expectValid(r);
    expect(op(r, 'GET /o').tool.http).toMatchObject({ auth: { kind: 'oauth2', grant: 'client_credentials', tokenUrl: 'https://api.acme.io/oauth/token', clientId: 'CLIENT-ID', clientSecret: 'ACME_CLIENT_SECRET', scope: 'read write' } });
    expect(op(r, 'GET /b').tool.http).toMatchObject({ auth: { kind: 'basic', username: '', passwordSecret: 'ACME_PASSWORD' } });
    expect(op(r, 'GET /c').tool.http).toMatchObject({ auth: { kind: 'none' }, headers: { Cookie: 'theme=${theme}; sid=${secret:ACME_API_KEY}' } });
    expect(op(r, 'GET /q').tool.http).toMatchObject({ auth: { kind: 'apiKey', in: 'query', name: 'api_key' } });
    expect(op(r, 'GET /m').tool.http).toMatchObject({ auth: { kind: 'none' } });
    expect(op(r, 'GET /m').warnings.join()).toMatch(/security left out: 'mystery'/);
    expect(op(r, 'GET /n').tool.http).toMatchObject({ auth: { kind: 'none' } });
  });

  it('form and text bodies, a non-object JSON body, array parameters, unique slugs', () => {
    const r = parseOpenApi(
      doc({
        servers: [{ url: 'http://localhost:8080' }],
        paths: {
          '/form': {
            post: {
              operationId: 'send',
              requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['a', 'list'], properties: { a: { type: 'string' }, list: { type: 'array', items: { type: 'string' } }, opt: { type: 'string' } } } } } },
              responses: {},
            },
          },
          '/text': { post: { operationId: 'send', requestBody: { content: { 'text/plain; charset=utf-8': { schema: { type: 'string' } } } }, responses: {} } },
          '/list/{ids}': {
            put: {
              operationId: 'send',
              parameters: [
                { name: 'ids', in: 'path', required: true, schema: { type: 'array', items: { type: 'integer' } } },
                { name: 'ids', in: 'query', required: true, schema: { type: 'string' } },
              ],
              requestBody: { content: { 'application/vnd.api+json': { schema: { type: 'array', items: { type: 'integer' } } } } },
              responses: {},
            },
          },
        },
      }),
    );
    expectValid(r);
    expect(r.operations.map((o) => o.slug)).toEqual(['send', 'send-2', 'send-3']);
    expect(r.hostsProposal).toEqual(['localhost:8080']);
    expect(op(r, 'POST /form').tool.http).toMatchObject({ body: { kind: 'form', fields: { a: '${a}', list: '${list}', opt: '${opt?}' }, encoding: { list: { style: 'form', explode: true } } } });
    expect(op(r, 'POST /form').tool.argSchema).toMatchObject({ properties: { list: { type: 'array', items: { type: 'string' } } }, required: ['a', 'list'] });
    expect(op(r, 'POST /text').tool.http).toMatchObject({ body: { kind: 'text', template: '${body}', contentType: 'text/plain' } });
    const list = op(r, 'PUT /list/{ids}');
    expect(list.tool.http).toMatchObject({ urlTemplate: 'http://localhost:8080/list/${ids}', query: { ids: '${ids_2}' }, body: { kind: 'json', template: '${body?}' } });
    expect(list.tool.argSchema).toMatchObject({ properties: { ids: { type: 'string' }, ids_2: { type: 'string' }, body: { type: 'array', items: { type: 'integer' } } } });
  });

  it('literal ${ in a path is escaped; an undeclared path parameter becomes a string argument', () => {
    const r = parseOpenApi(doc({ servers: [{ url: 'https://x.example.com' }], paths: { '/a/${b}/{c}': { get: { responses: {} } } } }));
    expect(r.operations[0]!.tool.http).toMatchObject({ urlTemplate: 'https://x.example.com/a/$${b}/${c}' });
    expect(r.operations[0]!.warnings.join()).toMatch(/'c' is not declared/);
    expectValid(r);
  });

  it('a self-referencing schema and a long $ref chain stay bounded', () => {
    const r = parseOpenApi(
      doc({
        servers: [{ url: 'https://x.example.com' }],
        components: { schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' }, value: { type: 'string' } } }, A: { $ref: '#/components/schemas/A' } } },
        paths: {
          '/n': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['node', 'a'], properties: { node: { $ref: '#/components/schemas/Node' }, a: { $ref: '#/components/schemas/A' } } } } } }, responses: {} } },
        },
      }),
    );
    expectValid(r);
    expect(r.operations[0]!.tool.argSchema).toMatchObject({ properties: { node: { type: 'object', properties: { next: {}, value: { type: 'string' } } }, a: {} } });
  });
});

describe('bad documents: clear errors', () => {
  it.each([
    ['Swagger 2.0', JSON.stringify({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }), /this is Swagger 2\.0; convert it to OpenAPI 3 first/],
    ['Swagger 2.0 in YAML', 'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n', /this is Swagger 2\.0/],
    ['random JSON', JSON.stringify({ name: 'my-package', version: '1.0.0' }), /no "openapi": "3\.x\.y" field/],
    ['a JSON array', '[1, 2, 3]', /it is an array/],
    ['a number', '42', /it is a number/],
    ['plain text', 'hello world', /it is a string/],
    ['an empty text', '  \n', /the document is empty/],
    ['OpenAPI 2.5', JSON.stringify({ openapi: '2.5.0' }), /only OpenAPI 3 documents/],
    ['an unquoted YAML version', 'openapi: 3.0\ninfo: {}\n', /quote it/],
    ['broken JSON', '{"openapi": "3.0.0",', /not valid JSON/],
    ['broken YAML', 'openapi: "3.0.0"\npaths:\n  /a: [\n', /neither JSON nor valid YAML: .* at line \d+, column \d+$/],
    ['two YAML documents', 'openapi: "3.0.0"\n---\nopenapi: "3.0.0"\n', /multiple documents/],
    ['duplicate keys', 'openapi: "3.0.0"\nopenapi: "3.1.0"\n', /unique/],
    ['paths that are a list', JSON.stringify({ openapi: '3.0.0', paths: [] }), /"paths" must be an object/],
    ['binary data', 'openapi: "3.0.0"\nx: !!binary aGk=\n', /binary data/],
  ])('%s', (_what, text, message) => {
    const e = refusal(() => parseOpenApi(text));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toMatch(message);
  });

  it('a billion-laughs YAML alias bomb is refused while parsing', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      const prev = String.fromCharCode(96 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    lines.unshift('openapi: "3.0.0"');
    expect(refusal(() => parseOpenApi(lines.join('\n'))).message).toMatch(/too many aliases.*alias bomb/);
  });

  it('a document nested 100,000 deep is refused', () => {
    expect(refusal(() => parseOpenApi(`{"openapi":"3.0.0","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).message).toMatch(/nested too deeply/);
    expect(refusal(() => parseOpenApi(`openapi: "3.0.0"\nx: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`)).message).toMatch(/nested too deeply/);
  });

  it('a document over 4 MiB is PAYLOAD_TOO_LARGE', () => {
    const e = refusal(() => parseOpenApi(`{"openapi":"3.0.0","x":"${'a'.repeat(MAX_OPENAPI_BYTES)}"}`));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a large, wide but valid document is read within bounds', () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 1200; i++) paths[`/r${i}/{id}`] = { get: { operationId: `get${i}`, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: {} } };
    const r = parseOpenApi(JSON.stringify({ openapi: '3.0.0', info: { title: 'Big', version: '1' }, servers: [{ url: 'https://big.example.com' }], paths }));
    expect(r.operations.length).toBe(1000);
    expect(r.skipped).toHaveLength(200);
    expect(r.skipped[0]).toEqual({ key: 'GET /r1000/{id}', reason: 'more than 1000 operations: split the document to import the rest' });
  });
});
