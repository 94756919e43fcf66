/**
 * The bounds of a script tool's source and limits, and of what a call keeps of its logs
 * (./script-tool.ts). Apart, without zod, so the sandbox worker that reads them stays small.
 */
export const SCRIPT_LIMITS = {
  /** The source, as UTF-8. */
  sourceMaxBytes: 256 * 1024,
  timeLimitMs: { min: 10, max: 600_000 },
  memoryLimitMb: { min: 8, max: 1024 },
  maxOutputBytes: { min: 1024, max: 16 * 1024 * 1024 },
  /** Log lines one call keeps, their total size, and the longest line. */
  logLines: 200,
  logBytes: 64 * 1024,
  logLineChars: 2000,
} as const;

/** One line a script wrote with ctx.log or console.* (ScriptLogLineSchema in ./script-tool.ts checks it). */
export interface ScriptLogLineShape {
  level: 'log' | 'info' | 'warn' | 'error';
  text: string;
  atMs: number;
}
