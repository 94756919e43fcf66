/** Secrets: values go in, never come out. */
import { z } from 'zod';
import { Empty, type EventTable, type OperationTable } from './common';

export const SecretInfoSchema = z.object({ name: z.string(), hosts: z.array(z.string()), createdAt: z.string(), updatedAt: z.string() }).strict();
export type SecretInfo = z.infer<typeof SecretInfoSchema>;

export const secretsOperations = {
  'secrets.list': { input: Empty, output: z.array(SecretInfoSchema) },
  'secrets.set': { input: z.object({ name: z.string().max(64), value: z.string().max(64 * 1024), hosts: z.array(z.string().max(253)).max(100) }).strict(), output: SecretInfoSchema },
  'secrets.setHosts': { input: z.object({ name: z.string().max(64), hosts: z.array(z.string().max(253)).max(100) }).strict(), output: SecretInfoSchema },
  'secrets.delete': { input: z.object({ name: z.string().max(64) }).strict(), output: z.object({ deleted: z.literal(true) }).strict() },
} as const satisfies OperationTable;

export const secretsEvents = {
  'secrets.changed': z.object({ names: z.array(z.string()) }).strict(),
} as const satisfies EventTable;
