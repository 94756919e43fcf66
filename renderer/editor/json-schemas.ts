/**
 * Schemas Monaco's JSON worker validates the editors against, written inline so nothing is
 * fetched (the app runs offline under a CSP with connect-src 'self').
 *
 * META_SCHEMA_2020_12 is the JSON Schema 2020-12 meta-schema's vocabulary (core,
 * applicator, unevaluated, validation, meta-data, format, content, plus the deprecated
 * `definitions`/`dependencies` the official one still allows) restated in the draft-07
 * form the JSON language service reads. It is never stricter than the official
 * meta-schema, so what it marks, ajv refuses too; the store's full check (ajv compile,
 * $ref resolution, $ref loops) still runs on save. It is registered under the official
 * 2020-12 URI as well, so a document whose `$schema` names 2020-12 resolves to it
 * instead of a request.
 */
import type { HttpLimits } from '../../shared/model/http-spec';

type Schema = Record<string, unknown>;

export const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const schemaMap = (description: string): Schema => ({ type: 'object', additionalProperties: ref('schema'), description });
const schemaList = (description: string): Schema => ({ type: 'array', minItems: 1, items: ref('schema'), description });
const nonNegative = (description: string): Schema => ({ type: 'integer', minimum: 0, description });
const text = (description: string): Schema => ({ type: 'string', description });

export const META_SCHEMA_2020_12: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'JSON Schema 2020-12',
  definitions: {
    simpleType: { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] },
    stringArray: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    schema: {
      type: ['object', 'boolean'],
      properties: {
        // core
        $id: text('The base URI of this schema (no fragment).'),
        $schema: text('The dialect: only https://json-schema.org/draft/2020-12/schema is accepted.'),
        $ref: text('A reference to another schema, e.g. #/$defs/address.'),
        $anchor: { type: 'string', pattern: '^[A-Za-z_][-A-Za-z0-9._]*$', description: 'A plain-name fragment for this subschema.' },
        $dynamicRef: text('A dynamic reference.'),
        $dynamicAnchor: { type: 'string', pattern: '^[A-Za-z_][-A-Za-z0-9._]*$' },
        $vocabulary: { type: 'object', additionalProperties: { type: 'boolean' } },
        $comment: text('A note for maintainers; ignored by validation.'),
        $defs: schemaMap('Reusable subschemas, referred to as #/$defs/NAME.'),
        definitions: schemaMap('Deprecated spelling of $defs.'),
        // applicator
        prefixItems: schemaList('Schemas of the first items of an array, by position.'),
        items: { ...ref('schema'), description: 'The schema of every array item (after prefixItems).' },
        contains: ref('schema'),
        additionalProperties: { ...ref('schema'), description: 'The schema of properties not listed in properties or patternProperties; false forbids them.' },
        properties: schemaMap('The schema of each named property.'),
        patternProperties: schemaMap('Schemas of properties whose names match a regular expression.'),
        dependentSchemas: schemaMap('Schemas that apply when a property is present.'),
        dependencies: { type: 'object', additionalProperties: { anyOf: [ref('schema'), ref('stringArray')] } },
        propertyNames: ref('schema'),
        if: ref('schema'),
        then: ref('schema'),
        else: ref('schema'),
        allOf: schemaList('The value must match every schema.'),
        anyOf: schemaList('The value must match at least one schema.'),
        oneOf: schemaList('The value must match exactly one schema.'),
        not: ref('schema'),
        // unevaluated
        unevaluatedItems: ref('schema'),
        unevaluatedProperties: ref('schema'),
        // validation
        type: {
          anyOf: [ref('simpleType'), { type: 'array', items: ref('simpleType'), minItems: 1, uniqueItems: true }],
          description: 'array, boolean, integer, null, number, object or string (or a list of them).',
        },
        const: { description: 'The value must equal this.' },
        enum: { type: 'array', items: true, description: 'The value must equal one of these.' },
        multipleOf: { type: 'number', exclusiveMinimum: 0 },
        maximum: { type: 'number' },
        exclusiveMaximum: { type: 'number' },
        minimum: { type: 'number' },
        exclusiveMinimum: { type: 'number' },
        maxLength: nonNegative('Longest allowed string, in characters.'),
        minLength: nonNegative('Shortest allowed string, in characters.'),
        pattern: text('A regular expression (ECMA-262) strings must match.'),
        maxItems: nonNegative('Most items an array may have.'),
        minItems: nonNegative('Fewest items an array may have.'),
        uniqueItems: { type: 'boolean' },
        maxContains: nonNegative(''),
        minContains: nonNegative(''),
        maxProperties: nonNegative(''),
        minProperties: nonNegative(''),
        required: { ...ref('stringArray'), description: 'Properties that must be present.' },
        dependentRequired: { type: 'object', additionalProperties: ref('stringArray') },
        // meta-data, format, content
        title: text('A short title.'),
        description: text('What the value means; models read this.'),
        default: { description: 'The value used when none is given.' },
        deprecated: { type: 'boolean' },
        readOnly: { type: 'boolean' },
        writeOnly: { type: 'boolean' },
        examples: { type: 'array', items: true },
        format: text('An annotation such as date-time, email or uri (not enforced).'),
        contentEncoding: text(''),
        contentMediaType: text(''),
        contentSchema: ref('schema'),
      },
    },
  },
  allOf: [ref('schema'), { type: 'object', description: 'A tool schema is a JSON object.' }],
};

/** The argument schema also says, at its top level, that arguments are one JSON object. */
export const ARG_SCHEMA_ROOT: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['type'],
  properties: {
    type: { const: 'object', errorMessage: 'argSchema must describe an object: set "type": "object" (tool arguments are one JSON object)' },
  },
};

const templateMap: Schema = { type: 'object', additionalProperties: { type: 'string', maxLength: 65536 } };
const secretName: Schema = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]*$', maxLength: 64 };

export const HTTP_AUTH_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['kind'],
  properties: { kind: { enum: ['none', 'apiKey', 'bearer', 'basic', 'hmac', 'oauth2'] } },
  oneOf: [
    { properties: { kind: { const: 'none' } }, additionalProperties: false },
    {
      properties: { kind: { const: 'apiKey' }, in: { enum: ['header', 'query'] }, name: { type: 'string', minLength: 1 }, secret: secretName },
      required: ['in', 'name', 'secret'],
      additionalProperties: false,
    },
    { properties: { kind: { const: 'bearer' }, secret: secretName }, required: ['secret'], additionalProperties: false },
    { properties: { kind: { const: 'basic' }, username: { type: 'string' }, usernameSecret: secretName, passwordSecret: secretName }, additionalProperties: false },
    {
      properties: {
        kind: { const: 'hmac' },
        secret: secretName,
        algorithm: { enum: ['sha256', 'sha512'] },
        header: { type: 'string' },
        timestampHeader: { type: 'string' },
        encoding: { enum: ['hex', 'base64'] },
      },
      required: ['secret'],
      additionalProperties: false,
    },
    {
      properties: {
        kind: { const: 'oauth2' },
        grant: { enum: ['client_credentials', 'refresh_token'] },
        tokenUrl: { type: 'string' },
        clientId: { type: 'string' },
        clientSecret: secretName,
        refreshTokenSecret: secretName,
        scope: { type: 'string' },
      },
      required: ['grant', 'tokenUrl', 'clientId'],
      additionalProperties: false,
    },
  ],
};

export const HTTP_BODY_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['kind'],
  properties: { kind: { enum: ['json', 'text', 'form', 'multipart'] } },
  oneOf: [
    { properties: { kind: { const: 'json' }, template: true }, additionalProperties: false },
    { properties: { kind: { const: 'text' }, template: { type: 'string' }, contentType: { type: 'string' } }, required: ['template'], additionalProperties: false },
    {
      properties: {
        kind: { const: 'form' },
        fields: templateMap,
        encoding: { type: 'object', additionalProperties: { type: 'object', properties: { style: { enum: ['form', 'deepObject', 'spaceDelimited', 'pipeDelimited'] }, explode: { type: 'boolean' } }, additionalProperties: false } },
      },
      required: ['fields'],
      additionalProperties: false,
    },
    { properties: { kind: { const: 'multipart' }, fields: templateMap, files: { type: 'array', items: { type: 'string' } } }, required: ['fields'], additionalProperties: false },
  ],
};

const limitKeys: Record<keyof HttpLimits, Schema> = {
  maxSentBytes: { type: 'integer', minimum: 1, maximum: 64 * 1024 * 1024, description: 'Bytes of the request sent at most.' },
  maxResponseBytes: { type: 'integer', minimum: 1, maximum: 256 * 1024 * 1024, description: 'Bytes of response body read at most.' },
  maxRetries: { type: 'integer', minimum: 0, maximum: 10, description: 'Retries of a failed idempotent request.' },
  maxCallsPerMinute: { type: 'integer', minimum: 1, maximum: 100000 },
  maxRedirects: { type: 'integer', minimum: 0, maximum: 10 },
};

export const HTTP_LIMITS_SCHEMA: Schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: limitKeys, additionalProperties: false };
export const TEMPLATE_MAP_SCHEMA: Schema = { $schema: 'http://json-schema.org/draft-07/schema#', ...templateMap };

/**
 * Which schema an editor uses is chosen by the file name of its model: JsonEditor names
 * its model `<instance>/<kind>.json`; fileMatch globs are matched as `**\/<pattern>`.
 */
export type JsonSchemaKind = 'json-schema' | 'arg-schema' | 'http-auth' | 'http-body' | 'http-limits' | 'http-templates' | 'none';

export const MODEL_FILE: Record<JsonSchemaKind, string> = {
  'json-schema': 'schema.schema.json',
  'arg-schema': 'args.schema.json',
  'http-auth': 'auth.http.json',
  'http-body': 'body.http.json',
  'http-limits': 'limits.http.json',
  'http-templates': 'templates.http.json',
  none: 'value.json',
};

export const EDITOR_SCHEMAS: { uri: string; fileMatch: string[]; schema: Schema }[] = [
  { uri: DIALECT_2020_12, fileMatch: ['*.schema.json'], schema: META_SCHEMA_2020_12 },
  { uri: 'toolsmith://schemas/arg-schema-root', fileMatch: [MODEL_FILE['arg-schema']], schema: ARG_SCHEMA_ROOT },
  { uri: 'toolsmith://schemas/http-auth', fileMatch: [MODEL_FILE['http-auth']], schema: HTTP_AUTH_SCHEMA },
  { uri: 'toolsmith://schemas/http-body', fileMatch: [MODEL_FILE['http-body']], schema: HTTP_BODY_SCHEMA },
  { uri: 'toolsmith://schemas/http-limits', fileMatch: [MODEL_FILE['http-limits']], schema: HTTP_LIMITS_SCHEMA },
  { uri: 'toolsmith://schemas/http-templates', fileMatch: [MODEL_FILE['http-templates']], schema: TEMPLATE_MAP_SCHEMA },
];
