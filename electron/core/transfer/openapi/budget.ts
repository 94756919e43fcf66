/**
 * The size budget of one proposed tool's argSchema: a model reads it with every call, and
 * the store refuses schemas over SCHEMA_LIMITS. Over budget, in this order, until it fits:
 * 1. descriptions inside the arguments' schemas are shortened, then removed with their examples;
 * 2. the arguments' own descriptions are shortened;
 * 3. the arguments' schemas are simplified to their type (and description), largest first;
 * 4. optional arguments are left out, last first (only when simplifying was not enough).
 * Each step taken is named in the warnings, with the arguments left out or simplified.
 */
import { dropArguments } from '../../../../shared/model/openapi-proposal';
import type { JsonSchemaObject } from '../../../../shared/model/tool';
import type { Json } from './document';

/** Bytes of argSchema JSON a proposal keeps at most (about 8k tokens). */
export const ARG_SCHEMA_BUDGET_BYTES = 32 * 1024;
/** Objects and arrays in an argSchema at most (the store allows 2000). */
export const ARG_SCHEMA_BUDGET_NODES = 1500;

function size(v: unknown): { bytes: number; nodes: number } {
  let nodes = 0;
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x && typeof x === 'object') {
      nodes++;
      stack.push(...(Array.isArray(x) ? x : Object.values(x)));
    }
  }
  return { bytes: Buffer.byteLength(JSON.stringify(v)), nodes };
}

function fits(schema: unknown): boolean {
  const s = size(schema);
  return s.bytes <= ARG_SCHEMA_BUDGET_BYTES && s.nodes <= ARG_SCHEMA_BUDGET_NODES;
}

/** Applies `fn` to every schema object below the arguments' own schemas. */
function eachNested(props: Record<string, JsonSchemaObject>, fn: (s: JsonSchemaObject) => void): void {
  const stack: unknown[] = Object.values(props).flatMap((p) => Object.entries(p).filter(([k]) => k !== 'description').map(([, v]) => v));
  while (stack.length) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...x);
    else if (x && typeof x === 'object') {
      fn(x as JsonSchemaObject);
      stack.push(...Object.values(x));
    }
  }
}

function shorten(s: JsonSchemaObject, max: number): void {
  if (typeof s.description === 'string' && s.description.length > max) s.description = `${s.description.slice(0, max - 1)}…`;
}

/** The tool within the budget, and what was done to get there (in `warnings`). */
export function fitBudget(tool: Json, warnings: string[]): Json {
  if (fits(tool.argSchema)) return tool;
  const schema = structuredClone(tool.argSchema) as { properties: Record<string, JsonSchemaObject>; required: string[] };
  let out: Json = { ...tool, argSchema: schema };
  const steps: string[] = [];
  const step = (what: string, fn: () => void) => {
    if (fits(out.argSchema)) return;
    fn();
    steps.push(what);
  };
  step('descriptions inside the arguments were shortened', () => eachNested(schema.properties, (s) => shorten(s, 200)));
  step('descriptions and examples inside the arguments were removed', () =>
    eachNested(schema.properties, (s) => {
      delete s.description;
      delete s.examples;
    }),
  );
  step("the arguments' descriptions were shortened", () => Object.values(schema.properties).forEach((s) => shorten(s, 300)));
  if (steps.length) warnings.push(`size budget (${ARG_SCHEMA_BUDGET_BYTES / 1024} KiB, ${ARG_SCHEMA_BUDGET_NODES} schema nodes): ${steps.join('; ')}`);

  if (!fits(out.argSchema)) {
    // Arguments keep their place with a simpler schema (their type) before any is left out: largest first.
    const props = schema.properties;
    const simplified: string[] = [];
    for (const name of Object.keys(props).sort((a, b) => size(props[b]).bytes - size(props[a]).bytes)) {
      if (fits(out.argSchema)) break;
      const s = props[name]!;
      props[name] = { ...(s.type !== undefined ? { type: s.type } : {}), ...(typeof s.description === 'string' ? { description: s.description } : {}) };
      simplified.push(name);
    }
    warnings.push(`argument schemas simplified to their type to keep within the size budget: ${simplified.join(', ')}`);
  }
  if (!fits(out.argSchema)) {
    const required = new Set(schema.required);
    const dropped: string[] = [];
    for (const name of Object.keys(schema.properties).filter((n) => !required.has(n))) {
      if (fits(out.argSchema)) break;
      out = dropArguments(out, [name]);
      dropped.push(name);
    }
    if (dropped.length) warnings.push(`optional arguments left out to keep within the size budget: ${dropped.join(', ')}`);
  }
  return out;
}
