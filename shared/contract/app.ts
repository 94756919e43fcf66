/** The app itself (its info, a ping, the problems it found) and the settings. */
import { z } from 'zod';
import { AppInfoSchema, ProblemSchema } from '../model/app-info';
import { SettingsPatchSchema, SettingsSchema } from '../model/settings';
import { Empty, type EventTable, type OperationTable } from './common';

export const appOperations = {
  'app.info': { input: Empty, output: AppInfoSchema },
  'app.ping': {
    input: z.object({ echo: z.string().max(10_000).optional() }).strict(),
    output: z.object({ echo: z.string(), at: z.string() }).strict(),
  },
  'app.problems': { input: Empty, output: z.array(ProblemSchema) },
  'settings.get': { input: Empty, output: SettingsSchema },
  'settings.set': { input: SettingsPatchSchema, output: SettingsSchema },
} as const satisfies OperationTable;

export const appEvents = {
  'settings.changed': SettingsSchema,
  'app.problem': ProblemSchema,
} as const satisfies EventTable;
