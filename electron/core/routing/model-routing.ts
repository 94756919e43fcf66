/**
 * Who decides where a tool's result goes when a model calls it (docs/design/routing.md,
 * "A model's own calls"):
 * 1. an `output=` given for the tool by an `@tools` directive routes it there;
 * 2. `output=inline` is a hard rule: the result stays inline, nothing may route it;
 * 3. with no `output=`, the result stays inline, unless the user allows the model to route
 *    this tool's results (Settings → Routing, `modelRouting`): then the model sees two
 *    more parameters, `output` and `write_mode`, and its choice is honoured.
 * The agent loop asks routingFor() per tool, gives the model modelArgSchema(), and splits
 * a call's arguments with splitModelArgs() before the dispatcher validates them.
 */
import { AppError } from '../../../shared/errors';
import { WriteModeSchema, type Destination, type WriteMode } from '../../../shared/model/routing';
import type { ToolView } from '../../../shared/model/tool';
import { destinationFromText } from './destination';
import type { ResolvedTool } from './types';

export const MODEL_OUTPUT_PARAM = 'output';
export const MODEL_WRITE_MODE_PARAM = 'write_mode';

export type ToolRouting =
  | { kind: 'fixed'; destination: Destination; writeMode?: WriteMode }
  | { kind: 'model' }
  | { kind: 'inline' };

/** A tool name in Settings: a slug, or bundle/slug. */
function namesTool(name: string, tool: ToolView, bundleSlug: string): boolean {
  const n = name.normalize('NFC');
  const slug = tool.slug.normalize('NFC');
  return n === slug || n === `${bundleSlug.normalize('NFC')}/${slug}`;
}

/**
 * The routing of one tool for a model's calls. `directive` is the tool as the `@tools`
 * lines resolved it (absent when no directive names it); `allowed` is Settings' modelRouting.
 */
export function routingFor(tool: ToolView, bundleSlug: string, directive: Pick<ResolvedTool, 'output' | 'writeMode'> | undefined, allowed: readonly string[]): ToolRouting {
  if (directive?.output) {
    if (directive.output.kind === 'inline') return { kind: 'inline' };
    return { kind: 'fixed', destination: directive.output, writeMode: directive.writeMode };
  }
  if (!allowed.some((name) => namesTool(name, tool, bundleSlug))) return { kind: 'inline' };
  // A tool with its own `output` or `write_mode` argument cannot be given ours.
  const props = propertiesOf(tool.argSchema);
  if (props && (MODEL_OUTPUT_PARAM in props || MODEL_WRITE_MODE_PARAM in props)) return { kind: 'inline' };
  return { kind: 'model' };
}

/** The argSchema the model is given: with `output` and `write_mode` when it may route. */
export function modelArgSchema(argSchema: unknown, routing: ToolRouting): unknown {
  if (routing.kind !== 'model') return argSchema;
  const schema = isObject(argSchema) ? argSchema : { type: 'object' };
  return {
    ...schema,
    properties: {
      ...(propertiesOf(schema) ?? {}),
      [MODEL_OUTPUT_PARAM]: {
        type: 'string',
        description:
          'Optional. Where the result goes instead of coming back to you: `variable:NAME` (a buffer you can read with buffer_ops), `file:PATH` (a file in the workspace; {today} is expanded), `discard`, or `inline` (the default: the result comes back).',
      },
      [MODEL_WRITE_MODE_PARAM]: {
        enum: WriteModeSchema.options,
        description: 'Optional, with output: append (default), replace, or new (a fresh numbered name).',
      },
    },
  };
}

export interface SplitArgs {
  args: unknown;
  destination: Destination;
  writeMode?: WriteMode;
}

/**
 * A model's call split into the tool's own arguments and where its result goes.
 * A bad `output` or `write_mode` is VALIDATION_FAILED (told back to the model), before the tool runs.
 */
export function splitModelArgs(args: unknown, routing: ToolRouting): SplitArgs {
  if (routing.kind === 'fixed') return { args, destination: routing.destination, writeMode: routing.writeMode };
  if (routing.kind === 'inline' || !isObject(args)) return { args, destination: { kind: 'inline' } };
  const { [MODEL_OUTPUT_PARAM]: output, [MODEL_WRITE_MODE_PARAM]: writeMode, ...rest } = args;
  if (output !== undefined && typeof output !== 'string') throw new AppError('VALIDATION_FAILED', `${MODEL_OUTPUT_PARAM} must be a string such as variable:results`, { field: MODEL_OUTPUT_PARAM });
  const mode = writeMode === undefined ? undefined : WriteModeSchema.safeParse(writeMode);
  if (mode && !mode.success) throw new AppError('VALIDATION_FAILED', `${MODEL_WRITE_MODE_PARAM} must be one of append, replace, new`, { field: MODEL_WRITE_MODE_PARAM });
  return { args: rest, destination: destinationFromText(output, MODEL_OUTPUT_PARAM), writeMode: mode?.data };
}

function propertiesOf(schema: unknown): Record<string, unknown> | undefined {
  return isObject(schema) && isObject(schema.properties) ? schema.properties : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
