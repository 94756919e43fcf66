/**
 * What a command run in this process writes, for tests: process.stdout and process.stderr
 * are captured into `out` and `err` before each test (a test may clear them between runs),
 * and put back after it, with console's methods (runCliProcess sends console.log to stderr
 * for the rest of the process).
 */
import { afterEach, beforeEach, vi } from 'vitest';

export interface CapturedOutput {
  out: string;
  err: string;
}

export function useCapturedOutput(): CapturedOutput {
  const io: CapturedOutput = { out: '', err: '' };
  const saved = { log: console.log, info: console.info, debug: console.debug };
  beforeEach(() => {
    io.out = '';
    io.err = '';
    for (const [stream, key] of [
      [process.stdout, 'out'],
      [process.stderr, 'err'],
    ] as const) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
        io[key] += String(chunk);
        (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
        return true;
      });
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
    Object.assign(console, saved);
  });
  return io;
}
