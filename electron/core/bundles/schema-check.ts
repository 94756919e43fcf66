/**
 * argSchema and outputSchema must be JSON Schema 2020-12 that ajv compiles. The cheap
 * checks run first (size, depth and node count in shared/model/validation.ts; in-place
 * $ref loops in ref-cycles.ts) so a hostile schema never reaches ajv's recursive code.
 *
 * ajv options, and why:
 * - allErrors: with it off ajv nests the code of each property inside the previous one
 *   and overflows the stack at ~2,000 properties; with it on the code stays flat.
 * - strict: false: unknown keywords (x-*, OpenAPI extras) are common in tool schemas.
 * - validateFormats: false: formats are annotations here (ajv-formats is not installed).
 * - code.regExp: `pattern` and `patternProperties` run on lib/schema-regexp.ts (re2js, or
 *   a worker under a time budget), never on JavaScript's backtracking engine on this thread:
 *   a pattern like ^(a+)+$ would otherwise freeze the app. A pattern that is not valid
 *   ECMAScript still fails to compile, with the engine's message.
 * The invoker should create its ajv with AJV_OPTIONS too, so what compiled here compiles there.
 */
import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import type { Options } from 'ajv';
import { quote, schemaViolation, violationError, type RuleViolation } from '../../../shared/model/validation';
import { schemaRegExp } from '../lib/schema-regexp';
import { findInPlaceRefCycle } from './ref-cycles';

export const AJV_OPTIONS: Options = { strict: false, allErrors: true, validateFormats: false, logger: false, code: { regExp: schemaRegExp } };

const DIALECT_2020 = 'https://json-schema.org/draft/2020-12/schema';

let shared: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  return (shared ??= new Ajv2020(AJV_OPTIONS));
}

function dialectViolation(schema: Record<string, unknown>, field: string): RuleViolation | null {
  const dialect = schema.$schema;
  if (dialect === undefined || dialect === DIALECT_2020 || dialect === `${DIALECT_2020}#`) return null;
  return {
    field,
    rule: 'schema-dialect',
    message: `${field} declares $schema ${typeof dialect === 'string' ? quote(dialect) : typeof dialect}: only JSON Schema 2020-12 is supported (remove $schema or use ${DIALECT_2020})`,
  };
}

function cycleViolation(schema: Record<string, unknown>, field: string): RuleViolation | null {
  const cycle = findInPlaceRefCycle(schema);
  if (!cycle) return null;
  return {
    field,
    rule: 'ref-cycle',
    message: `${field} has a $ref loop that never moves into a property or item (${cycle.join(' -> ')}); validating any value would loop forever`,
  };
}

/** ajv's wording, with its `data` placeholder replaced by the field name. */
function compileViolation(e: unknown, field: string): RuleViolation {
  if (e instanceof RangeError) {
    return { field, rule: 'too-complex', message: `${field} is too complex to compile: simplify it or split it with $defs` };
  }
  const text = e instanceof Error ? e.message : String(e);
  const unresolved = /can't resolve reference (.+) from id/.exec(text);
  if (unresolved) {
    return {
      field,
      rule: 'unresolved-ref',
      message: `${field} has a $ref that cannot be resolved: ${quote(unresolved[1]!)} (only references inside the schema are allowed)`,
    };
  }
  const invalid = /^schema is invalid: (.*)$/s.exec(text);
  const detail = (invalid ? invalid[1]! : text).replace(/\bdata(?=[/. ]|$)/g, field).slice(0, 500);
  return { field, rule: 'json-schema', message: `${field} is not a valid JSON Schema 2020-12: ${detail}` };
}

/**
 * Schemas that compiled, by the SHA-256 of their JSON text: compiling is deterministic, so
 * the same text compiles again. A tool saved again with its schemas unchanged, a draft run
 * again, and the built-in bundles at each open skip ajv's code generation. A schema that
 * failed is not kept: it is checked again each time. Bounded; the oldest entry goes first.
 */
const compiled = new Set<string>();
const MAX_COMPILED = 2_000;

/** Full check, used on every write: returns a violation or null. */
export function schemaCompileViolation(schema: unknown, field: string): RuleViolation | null {
  const shape = schemaViolation(schema, field);
  if (shape) return shape;
  const s = schema as Record<string, unknown>;
  const key = createHash('sha256').update(JSON.stringify(s)).digest('base64');
  if (compiled.has(key)) return null;
  const pre = dialectViolation(s, field) ?? cycleViolation(s, field);
  if (pre) return pre;
  const instance = ajv();
  try {
    instance.compile(s);
  } catch (e) {
    return compileViolation(e, field);
  } finally {
    // Forget the schema (and its $id), so the next tool may use the same $id.
    instance.removeSchema(s);
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.values().next().value!);
  compiled.add(key);
  return null;
}

/**
 * The load-time check: meta-schema only, no code generation, so opening a folder of
 * thousands of tools stays fast. Files the store wrote passed the full check on write.
 */
export function schemaMetaViolation(schema: unknown, field: string): RuleViolation | null {
  const shape = schemaViolation(schema, field);
  if (shape) return shape;
  const s = schema as Record<string, unknown>;
  const pre = dialectViolation(s, field) ?? cycleViolation(s, field);
  if (pre) return pre;
  try {
    const instance = ajv();
    if (instance.validateSchema(s) === true) return null;
    return compileViolation(new Error(`schema is invalid: ${instance.errorsText(instance.errors)}`), field);
  } catch (e) {
    return compileViolation(e, field);
  }
}

export function checkSchemaCompiles(schema: unknown, field: string): void {
  const v = schemaCompileViolation(schema, field);
  if (v) throw violationError(v);
}
