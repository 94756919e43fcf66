/**
 * Compiled argSchema/outputSchema validators, compiled once per tool version and kept in a
 * bounded cache. Tool versions are immutable, so a tool id names one schema for good.
 * A saved tool's validators are also pinned to the tool object itself, so a repeated call
 * finds them without building a key.
 *
 * Arguments are checked with ajv's useDefaults: a property the caller left out takes its
 * schema `default` (nested objects too). ajv fills in place, so it fills a copy, and only
 * for schemas that declare a default at all.
 *
 * Every check runs through `validateWith`: the schema's patterns share one time budget
 * (lib/schema-regexp.ts), and a pattern that runs out of it fails the check with an issue
 * naming the pattern instead of freezing the app.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { SchemaPatternError, withPatternBudget } from '../lib/schema-regexp';
import { AJV_OPTIONS } from '../bundles/schema-check';

export interface SchemaIssue {
  path: string;
  message: string;
}

/** How many compiled schemas a cache keeps of each kind (arguments, other values) unless told otherwise. */
export const SCHEMA_CACHE_MAX_ENTRIES = 4000;
const NO_ISSUES: readonly SchemaIssue[] = Object.freeze([]);

/** What a saved tool version's validators are found by. */
export interface SavedSchemas {
  id: string;
  argSchema: object;
  outputSchema: object;
}

interface Pinned {
  args?: ArgsValidator;
  output?: ValidateFunction;
}

interface ArgsValidator {
  validate: ValidateFunction;
  /** The schema declares a `default` somewhere, so a call's arguments are copied before checking. */
  fills: boolean;
}

/** The issues, and the arguments with the schema's defaults filled in (a copy when any were declared). */
export interface ArgsCheck {
  issues: readonly SchemaIssue[];
  value: unknown;
}

const ARGS_AJV_OPTIONS = { ...AJV_OPTIONS, useDefaults: true } as const;

export class SchemaCache {
  private readonly ajv = new Ajv2020(AJV_OPTIONS);
  private readonly argsAjv = new Ajv2020(ARGS_AJV_OPTIONS);
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly argsCache = new Map<string, ArgsValidator>();
  private readonly pinned = new WeakMap<object, Pinned>();

  /** `maxEntries`: the cap of each kind (a test sets a small one to reach it quickly). */
  constructor(private readonly maxEntries = SCHEMA_CACHE_MAX_ENTRIES) {}

  /** Validates `value` against the schema cached under `key`; returns the issues, empty when valid. */
  check(key: string, schema: object, value: unknown): readonly SchemaIssue[] {
    return validateWith(this.validator(key, schema), value);
  }

  /** Validates arguments against the argSchema cached under `key`, filling the schema's defaults into a copy. */
  checkArgs(key: string, schema: object, value: unknown): ArgsCheck {
    return runArgs(this.argsValidator(key, schema), value);
  }

  /** Validates `value` against a saved tool version's outputSchema. */
  checkOutput(tool: SavedSchemas, value: unknown): readonly SchemaIssue[] {
    const p = this.pin(tool);
    return validateWith((p.output ??= this.validator(`${tool.id}:output`, tool.outputSchema)), value);
  }

  /** Validates a saved tool version's arguments, filling its argSchema's defaults into a copy. */
  checkToolArgs(tool: SavedSchemas, value: unknown): ArgsCheck {
    const p = this.pin(tool);
    return runArgs((p.args ??= this.argsValidator(`${tool.id}:args`, tool.argSchema)), value);
  }

  private pin(tool: SavedSchemas): Pinned {
    let p = this.pinned.get(tool);
    if (!p) {
      p = {};
      this.pinned.set(tool, p);
    }
    return p;
  }

  private validator(key: string, schema: object): ValidateFunction {
    const hit = this.cache.get(key);
    if (hit) return hit;
    const validate = compile(this.ajv, AJV_OPTIONS, schema);
    bounded(this.cache, this.maxEntries, key, validate, (old) => forget(this.ajv, old));
    return validate;
  }

  private argsValidator(key: string, schema: object): ArgsValidator {
    const hit = this.argsCache.get(key);
    if (hit) return hit;
    const v = { validate: compile(this.argsAjv, ARGS_AJV_OPTIONS, schema), fills: declaresDefault(schema) };
    bounded(this.argsCache, this.maxEntries, key, v, (old) => forget(this.argsAjv, old.validate));
    return v;
  }
}

function compile(ajv: Ajv2020, options: typeof AJV_OPTIONS, schema: object): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch {
    // Two tools may declare the same $id; compile such a schema on its own instance.
    return new Ajv2020(options).compile(schema);
  }
}

/**
 * Bounded: past the cap the oldest compiled entry goes (a recompile is the only cost), from
 * ajv's own cache too — ajv keeps every schema it compiled, so only this frees the memory.
 */
function bounded<V>(cache: Map<string, V>, max: number, key: string, value: V, evict: (old: V) => void): void {
  if (cache.size >= max) {
    const oldest = cache.keys().next().value as string;
    const old = cache.get(oldest);
    cache.delete(oldest);
    if (old !== undefined) evict(old);
  }
  cache.set(key, value);
}

/** Drops a compiled schema from ajv's cache (one compiled on a throwaway instance is not there: nothing to do). */
function forget(ajv: Ajv2020, validate: ValidateFunction): void {
  try {
    if (typeof validate.schema === 'object') ajv.removeSchema(validate.schema);
  } catch {
    // Not in this instance's cache.
  }
}

function runArgs(v: ArgsValidator, value: unknown): ArgsCheck {
  // ajv writes the defaults into the value it checks: never into the caller's object.
  const copy = v.fills && typeof value === 'object' && value !== null ? structuredClone(value) : value;
  const issues = validateWith(v.validate, copy);
  return issues.length === 0 ? { issues, value: copy } : { issues, value };
}

/**
 * Runs a compiled validator: its issues, empty when valid. A schema pattern that could not
 * be checked within its budget (or at all) is one issue at (root) that names the pattern.
 */
export function validateWith(validate: ValidateFunction, value: unknown): readonly SchemaIssue[] {
  try {
    return withPatternBudget(validate, value) ? NO_ISSUES : issuesOf(validate.errors ?? []);
  } catch (e) {
    if (e instanceof SchemaPatternError) return [{ path: '(root)', message: e.message }];
    throw e;
  }
}

/** Whether a `default` keyword appears anywhere in the schema (a property named "default" counts too: it only costs a copy). */
export function declaresDefault(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else {
      if (Object.prototype.hasOwnProperty.call(node, 'default')) return true;
      stack.push(...Object.values(node));
    }
  }
  return false;
}

export function issuesOf(errors: ErrorObject[]): SchemaIssue[] {
  return errors.slice(0, 50).map((e) => {
    const at = e.instancePath || '(root)';
    const extra =
      // ajv's message for `required` already names the property.
      e.keyword === 'additionalProperties'
          ? `: '${(e.params as { additionalProperty: string }).additionalProperty}'`
        : e.keyword === 'enum'
          ? `: ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues).slice(0, 200)}`
          : '';
    return { path: at, message: `${e.message ?? 'is invalid'}${extra}` };
  });
}

export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path} ${i.message}`)
    .join('; ');
}
