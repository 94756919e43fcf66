import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

describe('npm start without an Electron binary', () => {
  it('explains the fallback in one paragraph and serves a working sign-in link', async () => {
    await fs.access(path.join(root, 'dist-electron', 'serve.mjs')).catch(() => {
      throw new Error('build first: npm run build');
    });
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-start-'));
    // TOOLSMITH_HEADLESS forces the fallback where an Electron binary does exist.
    const env = { ...process.env, TOOLSMITH_HEADLESS: fsHasElectron() ? '1' : process.env.TOOLSMITH_HEADLESS };
    const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--port', '0', '--data-dir', dataDir], { cwd: root, env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const link = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no sign-in link in 60 s:\n${out}`)), 60_000);
        const check = () => {
          const m = /one-time link: (\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        child.stdout.on('data', check);
        child.on('exit', () => reject(new Error(`exited early:\n${out}`)));
      });
      expect(out).toMatch(/Electron could not be started on this machine/);
      expect(out).toMatch(/headless host/);
      const res = await fetch(link, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/);
    } finally {
      child.kill('SIGTERM');
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

function fsHasElectron(): boolean {
  return existsSync(path.join(root, 'node_modules', 'electron', 'path.txt'));
}
