import { z } from 'zod';

export const HostKindSchema = z.enum(['electron', 'headless']);

export const AppInfoSchema = z
  .object({
    name: z.literal('Toolsmith'),
    version: z.string(),
    host: HostKindSchema,
    dataDir: z.string(),
    workspaceDir: z.string(),
    /** The drop-in folder: a tool's NAME.json (and a script's NAME.js) dropped there is registered (shared/model/script-tool.ts). */
    dropInDir: z.string().optional(),
    platform: z.string(),
    nodeVersion: z.string(),
    startedAt: z.string(),
  })
  .strict();
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const ProblemSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['corrupt-file', 'invalid-config', 'io-error']),
    path: z.string(),
    message: z.string(),
    movedTo: z.string().optional(),
    at: z.string(),
  })
  .strict();
export type Problem = z.infer<typeof ProblemSchema>;
