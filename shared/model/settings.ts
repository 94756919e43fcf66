import { z } from 'zod';
import { ModelRefSchema } from './provider';

export const ThemeSchema = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof ThemeSchema>;

/** Host names a tool may reach: exact, or `*.` on a label boundary; an optional port. */
export const AllowedHostSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, 'a host name, optionally *.-prefixed, with an optional :port');

export const SettingsSchema = z
  .object({
    theme: ThemeSchema,
    /** The folder tools may read and write; empty means `<data folder>/workspace`. */
    workspaceDir: z.string().max(4096),
    allowedHosts: z.array(AllowedHostSchema).max(1000),
    /** Tools (slug, or bundle/slug) whose results a model may route itself with `output`/`write_mode` (seed 000). */
    /** The model new conversations start with (null: none). */
    defaultModel: ModelRefSchema.nullable(),
    modelRouting: z.array(z.string().regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*\/)?[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a tool slug, or bundle/slug').max(300)).max(1000),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  workspaceDir: '',
  allowedHosts: [],
  defaultModel: null,
  modelRouting: [],
};

/** A settings change: any subset of the fields. */
export const SettingsPatchSchema = SettingsSchema.partial().strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;
