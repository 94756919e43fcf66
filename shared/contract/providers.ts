/** Models in the chat: the providers that serve them. */
import { z } from 'zod';
import { ConnectionVerdictSchema, DetectedProviderSchema, ProviderInputSchema, ProviderSchema } from '../model/provider';
import { Empty, Key, type EventTable, type OperationTable } from './common';

export const providersOperations = {
  'providers.list': { input: Empty, output: z.array(ProviderSchema) },
  /** Adds (no id) or changes a provider; the key goes to the secret store, bound to the base URL's host. */
  'providers.save': { input: z.object({ id: Key.optional(), provider: ProviderInputSchema }).strict(), output: ProviderSchema },
  'providers.delete': { input: z.object({ id: Key }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
  /** Talks to the provider (lists its models) and answers a verdict a user can act on; the model list is kept. */
  'providers.test': { input: z.object({ id: Key }).strict(), output: ConnectionVerdictSchema },
  /** Ollama (11434) and LM Studio (1234) answering on 127.0.0.1, not yet added. */
  'providers.detect': { input: Empty, output: z.array(DetectedProviderSchema) },
} as const satisfies OperationTable;

export const providersEvents = {
  'providers.changed': z.object({ ids: z.array(z.string()) }).strict(),
} as const satisfies EventTable;
