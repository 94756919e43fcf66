import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../core/testing/temp-dir';
import { CLI_SESSION_PREFIX, makeCliSession, processAlive, removeCliSession, sweepCliSessions } from './cli-session';

const tempDir = useTempDirs();

describe("a command-line run's own browser-data folder", () => {
  it('is made under the process id, and removed without throwing, twice included', async () => {
    const tmp = await tempDir();
    const dir = makeCliSession(tmp, 4242);
    expect(path.basename(dir)).toMatch(new RegExp(`^${CLI_SESSION_PREFIX}4242-`));
    fs.mkdirSync(path.join(dir, 'Local Storage', 'leveldb'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'Local Storage', 'leveldb', 'LOG'), 'x');
    removeCliSession(dir);
    expect(fs.existsSync(dir)).toBe(false);
    expect(() => removeCliSession(dir)).not.toThrow();
  });

  it('sweeps only the folders of processes that are gone, and leaves everything else', async () => {
    const tmp = await tempDir();
    const gone = makeCliSession(tmp, 111);
    const running = makeCliSession(tmp, 222);
    fs.writeFileSync(path.join(gone, 'Cookies'), 'x');
    const other = path.join(tmp, 'toolsmith-something-else');
    fs.mkdirSync(other);
    const oddName = path.join(tmp, `${CLI_SESSION_PREFIX}not-a-pid`);
    fs.mkdirSync(oddName);
    const removed = sweepCliSessions(tmp, (pid) => pid === 222);
    expect(removed).toEqual([path.basename(gone)]);
    expect(fs.existsSync(gone)).toBe(false);
    expect([running, other, oddName].every((d) => fs.existsSync(d))).toBe(true);
    expect(sweepCliSessions(path.join(tmp, 'missing'))).toEqual([]);
  });

  it('tells a running process from one that is gone', () => {
    expect(processAlive(process.pid)).toBe(true);
    // Above any pid_max a system allows.
    expect(processAlive(2 ** 31 - 2)).toBe(false);
  });
});
