/**
 * Settings → Script tools as typed: each limit as the text in its box, and back. A box that holds
 * no number becomes NaN, so the core refuses it naming the field and its bounds; nothing typed
 * is lost.
 */
import type { ScriptSettings } from '../../../shared/model/script-tool';

export type ScriptSettingsDraft = { [K in keyof ScriptSettings]: string };

export const SCRIPT_SETTINGS_KEYS = ['timeLimitMs', 'memoryLimitMb', 'maxOutputBytes'] as const satisfies readonly (keyof ScriptSettings)[];

export function toScriptSettingsDraft(s: ScriptSettings): ScriptSettingsDraft {
  return { timeLimitMs: String(s.timeLimitMs), memoryLimitMb: String(s.memoryLimitMb), maxOutputBytes: String(s.maxOutputBytes) };
}

const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text.trim()));

export function fromScriptSettingsDraft(d: ScriptSettingsDraft): ScriptSettings {
  return { timeLimitMs: num(d.timeLimitMs), memoryLimitMb: num(d.memoryLimitMb), maxOutputBytes: num(d.maxOutputBytes) };
}

/** The box a refusal's path ('scriptTools.timeLimitMs', 'scriptTools/timeLimitMs') is about, or null. */
export function scriptSettingsFieldOf(path: string): keyof ScriptSettingsDraft | null {
  const p = path.replace(/^(body[./])?scriptTools[./]/, '');
  return SCRIPT_SETTINGS_KEYS.find((k) => p === k || p.startsWith(`${k}.`) || p.startsWith(`${k}/`)) ?? null;
}
