import { describe, expect, it } from 'vitest';
import { closeBeforeQuit } from './quit';

function quitEvent(log: string[]) {
  return { preventDefault: () => log.push('prevented') };
}

function exited(log: string[]): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      const line = log.find((l) => l.startsWith('exit '));
      if (line) resolve(Number(line.slice(5)));
      else setImmediate(check);
    };
    check();
  });
}

describe('closeBeforeQuit', () => {
  it('holds the quit until close() has finished, then exits with 0', async () => {
    const log: string[] = [];
    const onQuit = closeBeforeQuit({
      close: async () => {
        log.push('close started');
        await new Promise((r) => setTimeout(r, 20));
        log.push('close finished');
      },
      exit: (code) => log.push(`exit ${code}`),
    });
    onQuit(quitEvent(log));
    expect(await exited(log)).toBe(0);
    expect(log).toEqual(['prevented', 'close started', 'close finished', 'exit 0']);
  });

  it('closes once when quit is asked again while closing', async () => {
    const log: string[] = [];
    let release!: () => void;
    let closes = 0;
    const onQuit = closeBeforeQuit({
      close: () => {
        closes++;
        return new Promise<void>((r) => (release = r));
      },
      exit: (code) => log.push(`exit ${code}`),
    });
    onQuit(quitEvent(log));
    onQuit(quitEvent(log));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['prevented', 'prevented']);
    release();
    expect(await exited(log)).toBe(0);
    expect(closes).toBe(1);
  });

  it('exits with 1 after a close that fails or never ends, and says why; exits at once with no core', async () => {
    const warnings: string[] = [];
    const failing: string[] = [];
    closeBeforeQuit({ close: () => Promise.reject(new Error('disk gone')), exit: (c) => failing.push(`exit ${c}`), warn: (m) => warnings.push(m) })(quitEvent(failing));
    expect(await exited(failing)).toBe(1);

    const hanging: string[] = [];
    closeBeforeQuit({ close: () => new Promise(() => undefined), exit: (c) => hanging.push(`exit ${c}`), warn: (m) => warnings.push(m), timeoutMs: 10 })(quitEvent(hanging));
    expect(await exited(hanging)).toBe(1);
    expect(warnings).toEqual([expect.stringContaining('disk gone'), expect.stringContaining('did not finish closing')]);

    const none: string[] = [];
    closeBeforeQuit({ close: () => undefined, exit: (c) => none.push(`exit ${c}`) })(quitEvent(none));
    expect(await exited(none)).toBe(0);
  });
});
