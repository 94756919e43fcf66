/**
 * Multi-step tools: each step calls another tool through the dispatcher (so its args and
 * result are validated, it is logged and counted like any call), with args rendered from
 * the call's arguments and earlier steps' results.
 */
import { AppError } from '../../../shared/errors';
import { parseTemplate, type Placeholder } from '../../../shared/model/http-spec';
import { SequenceSpecSchema } from '../../../shared/model/tool';
import type { Backend } from './dispatcher';

/** How deep sequences may call sequences; deeper is a loop or a design to flatten. */
export const MAX_SEQUENCE_DEPTH = 8;

export const runSequence: Backend = async ({ tool, args, signal, invoke, depth = 0, ownerId }) => {
  if (depth >= MAX_SEQUENCE_DEPTH) {
    throw new AppError('VALIDATION_FAILED', `'${tool.slug}' nests sequences more than ${MAX_SEQUENCE_DEPTH} deep (does it call itself?)`);
  }
  const spec = SequenceSpecSchema.parse(tool.sequence);
  const steps: Record<string, { value: unknown }> = {};
  let last: unknown = undefined;
  let attempts = 0;
  for (const step of spec.steps) {
    if (signal.aborted) throw signal.reason;
    const stepArgs = renderJson(step.args ?? {}, { args, steps });
    const o = await invoke({ ...step.tool, args: stepArgs, source: 'step', signal, depth: depth + 1, ownerId });
    attempts += o.attempts;
    if (!o.ok) {
      throw new AppError(o.error.code, `step '${step.id}' (${step.tool.slug}) failed: ${o.error.message}`, { step: step.id, cause: o.error, attempts });
    }
    steps[step.id] = { value: o.value };
    last = o.value;
  }
  const value = spec.result === undefined ? last : renderJson(spec.result, { args, steps });
  return { value, attempts };
};

/**
 * Renders a JSON template: a string that is exactly one placeholder takes the value itself
 * (any JSON); other strings interpolate values as text.
 */
export function renderJson(template: unknown, scope: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const parts = parseTemplate(template);
    if (parts.length === 1 && 'placeholder' in parts[0]!) return lookup(parts[0].placeholder, scope);
    return parts.map((p) => ('text' in p ? p.text : asText(lookup(p.placeholder, scope)))).join('');
  }
  if (Array.isArray(template)) return template.map((x) => renderJson(x, scope));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderJson(v, scope)]));
  }
  return template;
}

function lookup(p: Placeholder, scope: Record<string, unknown>): unknown {
  if (p.kind === 'secret') throw new AppError('VALIDATION_FAILED', 'secrets cannot be used in a sequence');
  let v: unknown = scope;
  for (const key of p.path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, key)) {
      throw new AppError('VALIDATION_FAILED', `\${${p.path.join('.')}} has no value`, { placeholder: p.path.join('.') });
    }
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? '';
}
