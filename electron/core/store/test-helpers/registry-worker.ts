/**
 * A separate process that writes to a registry, for the cross-process tests.
 * Run: node --import tsx registry-worker.ts '<json WorkerConfig>'
 * It prints one JSON object per line: {"ready"} after opening, then per mode:
 * - race:  waits for "go" on stdin, runs its PUTs, prints {"done", ok, conflicts, errors}.
 * - crash: writes until killed; prints {"start", ...} before and {"ack", ...} after each
 *          acknowledged write, so the test knows what must have survived the kill.
 */
import path from 'node:path';
import { EventBus } from '../../events';
import { ProblemLog } from '../../problems';
import { ToolStore } from '../tool-store';
import { raceSlug } from './worker-plan';

export interface RaceConfig {
  mode: 'race';
  dataDir: string;
  bundleId: string;
  worker: number;
  steps: number;
}

export interface CrashConfig {
  mode: 'crash';
  dataDir: string;
  bundleId: string;
  run: number;
  /** Tools acknowledged by earlier runs, which this run may PATCH. */
  known: { slug: string; version: string }[];
}

export type WorkerConfig = RaceConfig | CrashConfig;

const say = (o: unknown): void => {
  // Pipes are synchronous on Linux: the line is out before the next write starts.
  process.stdout.write(JSON.stringify(o) + '\n');
};

/** A tool body of about `size` bytes: bigger files widen the window a kill can land in. */
function body(size: number): Record<string, unknown> {
  return {
    displayName: 'Worker tool',
    description: 'A tool written by a test worker.',
    tags: ['worker'],
    type: 'local',
    argSchema: { type: 'object', properties: { text: { type: 'string', description: 'x'.repeat(size) } } },
    outputSchema: { type: 'string' },
    local: { functionId: 'test.echo' },
    isEnabled: true,
  };
}

async function race(store: ToolStore, c: RaceConfig): Promise<void> {
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  // A flowing stdin would keep this process alive after its work.
  process.stdin.destroy();
  const ok: [string, string][] = [];
  let conflicts = 0;
  const errors: string[] = [];
  for (let step = 0; step < c.steps; step++) {
    const slug = raceSlug(step, c.worker);
    try {
      ok.push([slug, (await store.putTool(c.bundleId, slug, '1', body(200))).id]);
    } catch (e) {
      if ((e as { code?: string }).code === 'CONFLICT') conflicts++;
      else errors.push(`${slug}: ${(e as Error).message}`);
    }
  }
  say({ done: true, ok, conflicts, errors });
}

async function crash(store: ToolStore, c: CrashConfig): Promise<never> {
  const known = [...c.known];
  for (let k = 0; ; k++) {
    const roll = Math.random();
    if (roll < 0.5 || known.length === 0) {
      const slug = `r${c.run}-${k}`;
      const version = `${k % 3}.${c.run}`;
      const t = await store.putTool(c.bundleId, slug, version, body(20_000 + Math.floor(Math.random() * 20_000)));
      known.push({ slug, version });
      say({ ack: 'put', slug, version, id: t.id });
    } else if (roll < 0.85) {
      const { slug, version } = known[Math.floor(Math.random() * known.length)]!;
      const isEnabled = Math.random() < 0.5;
      say({ start: 'patch', slug, version, isEnabled });
      await store.patchTool(c.bundleId, slug, version, { isEnabled });
      say({ ack: 'patch', slug, version, isEnabled });
    } else {
      const description = `run ${c.run} write ${k}`;
      say({ start: 'bundle', description });
      await store.putBundle(c.bundleId, { slug: 'crash', displayName: 'Crash test', isEnabled: true, description });
      say({ ack: 'bundle', description });
    }
  }
}

async function main(): Promise<void> {
  const c = JSON.parse(process.argv[2]!) as WorkerConfig;
  const problems = new ProblemLog(new EventBus(), () => new Date());
  const store = new ToolStore({ dataDir: c.dataDir, resourcesDir: path.join(c.dataDir, 'no-resources'), problems, lock: { staleMs: 2000, waitMs: 60_000 } });
  await store.open();
  say({ ready: true, pid: process.pid });
  if (c.mode === 'race') await race(store, c);
  else await crash(store, c);
  await store.close();
}

main().catch((e) => {
  say({ fatal: (e as Error).stack ?? String(e) });
  process.exit(1);
});
