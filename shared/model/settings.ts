import { z } from 'zod';
import { ModelRefSchema } from './provider';

export const ThemeSchema = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof ThemeSchema>;

/** Host names a tool may reach: exact, or `*.` on a label boundary; an optional port; `private:` marks a private-network host. */
export const AllowedHostSchema = z
  .string()
  .min(1)
  .max(261)
  .regex(/^(private:)?(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^(private:)?\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/, 'a host name, optionally *.-prefixed, with an optional :port (private: before it for a private-network host)');

/** Bounds and default of Settings' regexTimeLimitMs: a hostile pattern stops within 5 s by default. */
export const REGEX_TIME_LIMIT_MIN_MS = 100;
export const REGEX_TIME_LIMIT_MAX_MS = 60_000;
export const REGEX_TIME_LIMIT_DEFAULT_MS = 4_000;

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
    /** How long one regular expression search (grep, regex-extract, a buffer search) may run before it is stopped with TIMEOUT. */
    regexTimeLimitMs: z.number().int().min(REGEX_TIME_LIMIT_MIN_MS).max(REGEX_TIME_LIMIT_MAX_MS),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  workspaceDir: '',
  allowedHosts: [],
  defaultModel: null,
  modelRouting: [],
  regexTimeLimitMs: REGEX_TIME_LIMIT_DEFAULT_MS,
};

/** A settings change: any subset of the fields. */
export const SettingsPatchSchema = SettingsSchema.partial().strict();
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;
