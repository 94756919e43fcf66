import { z } from 'zod';
import { AppInfoSchema, ProblemSchema } from './model/app-info';
import { SettingsPatchSchema, SettingsSchema } from './model/settings';

/**
 * The one contract between the renderer (and scripts) and the core.
 * Adding an operation: an entry here, a handler in the core's table (it will not
 * compile without one), and a call from the client.
 */
const Empty = z.object({}).strict();

export const operations = {
  'app.info': { input: Empty, output: AppInfoSchema },
  'app.ping': {
    input: z.object({ echo: z.string().max(10_000).optional() }).strict(),
    output: z.object({ echo: z.string(), at: z.string() }).strict(),
  },
  'app.problems': { input: Empty, output: z.array(ProblemSchema) },
  'settings.get': { input: Empty, output: SettingsSchema },
  'settings.set': { input: SettingsPatchSchema, output: SettingsSchema },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

/** Events the core pushes to every connected window. */
export const events = {
  'settings.changed': SettingsSchema,
  'app.problem': ProblemSchema,
} as const satisfies Record<string, z.ZodType>;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export type OpInput<N extends OpName> = z.input<Operations[N]['input']>;
export type OpParsedInput<N extends OpName> = z.output<Operations[N]['input']>;
export type OpOutput<N extends OpName> = z.output<Operations[N]['output']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<N extends EventName> = z.output<Events[N]>;

export const operationNames = Object.keys(operations) as OpName[];
export const eventNames = Object.keys(events) as EventName[];

export function isOpName(name: unknown): name is OpName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(operations, name);
}

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

/** What both transports expose to the renderer: `window.toolsmith` has exactly this shape. */
export interface ContractClient {
  call<N extends OpName>(name: N, input: OpInput<N>): Promise<import('./errors').Result<OpOutput<N>>>;
  on<N extends EventName>(name: N, handler: (payload: EventPayload<N>) => void): () => void;
}
