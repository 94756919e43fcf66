/**
 * Compiled argSchema/outputSchema validators, compiled once per tool version and kept in a
 * bounded cache. Tool versions are immutable, so a tool id names one schema for good.
 * A saved tool's validators are also pinned to the tool object itself, so a repeated call
 * finds them without building a key.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { AJV_OPTIONS } from '../store/schema-check';

export interface SchemaIssue {
  path: string;
  message: string;
}

const MAX_ENTRIES = 4000;
const NO_ISSUES: readonly SchemaIssue[] = Object.freeze([]);

/** What a saved tool version's validators are found by. */
export interface SavedSchemas {
  id: string;
  argSchema: object;
  outputSchema: object;
}

interface Pinned {
  args?: ValidateFunction;
  output?: ValidateFunction;
}

export class SchemaCache {
  private readonly ajv = new Ajv2020(AJV_OPTIONS);
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly pinned = new WeakMap<object, Pinned>();

  /** Validates `value` against the schema cached under `key`; returns the issues, empty when valid. */
  check(key: string, schema: object, value: unknown): readonly SchemaIssue[] {
    const validate = this.validator(key, schema);
    return validate(value) ? NO_ISSUES : issuesOf(validate.errors ?? []);
  }

  /** Validates `value` against a saved tool version's argSchema or outputSchema. */
  checkTool(tool: SavedSchemas, which: 'args' | 'output', value: unknown): readonly SchemaIssue[] {
    let p = this.pinned.get(tool);
    if (!p) {
      p = {};
      this.pinned.set(tool, p);
    }
    const validate = which === 'args' ? (p.args ??= this.validator(`${tool.id}:args`, tool.argSchema)) : (p.output ??= this.validator(`${tool.id}:output`, tool.outputSchema));
    return validate(value) ? NO_ISSUES : issuesOf(validate.errors ?? []);
  }

  private validator(key: string, schema: object): ValidateFunction {
    const hit = this.cache.get(key);
    if (hit) return hit;
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(schema);
    } catch {
      // Two tools may declare the same $id; compile such a schema on its own instance.
      validate = new Ajv2020(AJV_OPTIONS).compile(schema);
    }
    // Bounded: past the cap the oldest compiled entry goes (a recompile is the only cost).
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, validate);
    return validate;
  }
}

export function issuesOf(errors: ErrorObject[]): SchemaIssue[] {
  return errors.slice(0, 50).map((e) => {
    const at = e.instancePath || '(root)';
    const extra =
      e.keyword === 'required'
        ? ` '${(e.params as { missingProperty: string }).missingProperty}'`
        : e.keyword === 'additionalProperties'
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
