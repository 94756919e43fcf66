/**
 * Script tools: a tool whose back-end is a few lines of JavaScript with a `run(args, ctx)`
 * function, run in a sandbox (electron/core/script-tools). The `script` object has two shapes:
 *
 * - what a client sends (a tool's put body, the editor's draft, a ZIP's tool entry) carries the
 *   source: ScriptSourceSpecSchema;
 * - what the registry serves and the tool's file holds carries the SHA-256 of the source, which
 *   lives in a readable `.js` file beside the tool's `.json`: ScriptSpecSchema.
 *
 * The limits are optional; an absent one is Settings → Script tools' default.
 */
import { z } from 'zod';
import { SCRIPT_LIMITS } from './script-limits';

export { SCRIPT_LIMITS } from './script-limits';

/** Settings → Script tools: the limits a script tool that sets none runs with. */
export const ScriptSettingsSchema = z
  .object({
    timeLimitMs: z.number().int().min(SCRIPT_LIMITS.timeLimitMs.min).max(SCRIPT_LIMITS.timeLimitMs.max),
    memoryLimitMb: z.number().int().min(SCRIPT_LIMITS.memoryLimitMb.min).max(SCRIPT_LIMITS.memoryLimitMb.max),
    maxOutputBytes: z.number().int().min(SCRIPT_LIMITS.maxOutputBytes.min).max(SCRIPT_LIMITS.maxOutputBytes.max),
  })
  .strict();
export type ScriptSettings = z.infer<typeof ScriptSettingsSchema>;

export const DEFAULT_SCRIPT_SETTINGS: ScriptSettings = { timeLimitMs: 5_000, memoryLimitMb: 64, maxOutputBytes: 1024 * 1024 };

/** A tool's own limits: each overrides the Settings default when given. */
const limitsShape = {
  timeLimitMs: ScriptSettingsSchema.shape.timeLimitMs.optional(),
  memoryLimitMb: ScriptSettingsSchema.shape.memoryLimitMb.optional(),
  maxOutputBytes: ScriptSettingsSchema.shape.maxOutputBytes.optional(),
};

export type ScriptLimits = { [K in keyof ScriptSettings]?: ScriptSettings[K] };

/** Bytes of a string as UTF-8 (lone surrogates count as the three bytes of U+FFFD). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * A source as it is hashed, written and run: without a leading byte order mark (U+FEFF). An editor
 * may save one; it is not part of the script, and the `.js` is read back without it.
 */
export function withoutBom(source: string): string {
  return source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
}

export const ScriptSourceSchema = z
  .string()
  .min(1, { error: 'the script is empty: write a function run(args, ctx)' })
  .superRefine((s, ctx) => {
    const bytes = utf8Length(s);
    if (bytes > SCRIPT_LIMITS.sourceMaxBytes) {
      ctx.addIssue({ code: 'custom', message: `the script is ${bytes} bytes; a script tool may hold at most ${SCRIPT_LIMITS.sourceMaxBytes / 1024} KiB`, params: { rule: 'max-bytes' } });
    }
    if (s.includes('\u0000')) ctx.addIssue({ code: 'custom', message: 'the script contains a NUL character', params: { rule: 'nul' } });
  });

/** What a client sends: the source and optional limits. */
export const ScriptSourceSpecSchema = z.object({ source: ScriptSourceSchema, ...limitsShape }).strict();
export type ScriptSourceSpec = z.infer<typeof ScriptSourceSpecSchema>;

export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, { error: 'a SHA-256 as 64 lowercase hex digits' });

/** What the registry serves and the tool file holds: the SHA-256 of the `.js` file beside it, and optional limits. */
export const ScriptSpecSchema = z.object({ sha256: Sha256HexSchema, ...limitsShape }).strict();
export type ScriptSpec = z.infer<typeof ScriptSpecSchema>;

/** The limits a call runs with: the tool's own, else Settings'. */
export function effectiveLimits(own: ScriptLimits | undefined, defaults: ScriptSettings): ScriptSettings {
  return {
    timeLimitMs: own?.timeLimitMs ?? defaults.timeLimitMs,
    memoryLimitMb: own?.memoryLimitMb ?? defaults.memoryLimitMb,
    maxOutputBytes: own?.maxOutputBytes ?? defaults.maxOutputBytes,
  };
}

/** One line a script wrote with ctx.log or console.*; `atMs` is the time since the call started. */
export const ScriptLogLineSchema = z
  .object({
    level: z.enum(['log', 'info', 'warn', 'error']),
    text: z.string(),
    atMs: z.number().min(0),
  })
  .strict();
export type ScriptLogLine = z.infer<typeof ScriptLogLineSchema>;

/** The drop-in folder, in the data folder: a NAME.json (and a NAME.js for a script) dropped there is registered. */
export const DROP_IN_FOLDER = 'drop-in';

/** The `invocation.event` kind a log line is sent under while the call runs. */
export const SCRIPT_LOG_EVENT = 'log';

/** Why a call of a script tool not written in this app is refused until the user trusts it (FORBIDDEN, details.rule). */
export const SCRIPT_NOT_TRUSTED_RULE = 'script-not-trusted';
