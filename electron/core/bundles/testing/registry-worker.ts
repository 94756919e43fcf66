/**
 * A separate process that writes to a registry, for the cross-process tests.
 * Run: node --import tsx registry-worker.ts '<json WorkerConfig>'
 * It prints one JSON object per line: {"ready"} after opening, then per mode:
 * - race:  waits for "go" on stdin, runs its PUTs, prints {"done", ok, conflicts, limited, errors}
 *          (limited: PUTs refused because the bundle held maxToolsPerBundle tools).
 * - crash: writes until killed; prints {"start", ...} before and {"ack", ...} after each
 *          acknowledged write, so the test knows what must have survived the kill.
 * - patch: PATCHes one tool over and over (isEnabled flipping) until killed; prints
 *          {"start", seq} before and {"ack", seq, id} or {"error", seq, code} after each,
 *          with the store's count of writes run again after losing their lock (lostRetries).
 * - hold:  takes a lock with a bare LockSet, prints {"held"}, and on "go" from stdin
 *          replaces a file under it and prints {"committed"} or {"error", code, message}.
 * - switch: for each line "on", "off" or "delete" from stdin, switches the bundle on or off or
 *          deletes it, and prints {"ack", seq} once the write is done; ends at "end".
 * Every ack carries the store's lockActivity(), so tests can see whether a lock was waited
 * for or taken over.
 */
import path from 'node:path';
import { EventBus } from '../../events';
import { ProblemLog } from '../../problems';
import { nodeFs, replaceFile } from '../../lib/durable-fs';
import { LockSet } from '../../lib/locks';
import { ToolStore } from '../tool-store';
import { raceSlug } from './worker-plan';

export interface RaceConfig {
  mode: 'race';
  dataDir: string;
  bundleId: string;
  worker: number;
  steps: number;
  /** Settings → Limits → Tools per bundle for this process's store (none unless given). */
  maxToolsPerBundle?: number;
}

export interface CrashConfig {
  mode: 'crash';
  dataDir: string;
  bundleId: string;
  run: number;
  /** Tools acknowledged by earlier runs, which this run may PATCH. */
  known: { slug: string; version: string }[];
  /** The lock's stale time (2,000 unless given). */
  staleMs?: number;
}

export interface PatchConfig {
  mode: 'patch';
  dataDir: string;
  bundleId: string;
  slug: string;
  version: string;
  staleMs: number;
}

export interface HoldConfig {
  mode: 'hold';
  dataDir: string;
  key: string;
  /** The file to replace on "go". */
  file: string;
  staleMs: number;
}

export interface SwitchConfig {
  mode: 'switch';
  dataDir: string;
  bundleId: string;
}

export type WorkerConfig = RaceConfig | CrashConfig | PatchConfig | HoldConfig | SwitchConfig;

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
  let limited = 0;
  const errors: string[] = [];
  for (let step = 0; step < c.steps; step++) {
    const slug = raceSlug(step, c.worker);
    try {
      ok.push([slug, (await store.putTool(c.bundleId, slug, '1', body(200))).id]);
    } catch (e) {
      const { code, details } = e as { code?: string; details?: { rule?: string } };
      if (code === 'CONFLICT' && details?.rule === 'bundle-tool-limit') limited++;
      else if (code === 'CONFLICT') conflicts++;
      else errors.push(`${slug}: ${(e as Error).message}`);
    }
  }
  say({ done: true, ok, conflicts, limited, errors });
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
      say({ ack: 'put', slug, version, id: t.id, lock: store.lockActivity() });
    } else if (roll < 0.85) {
      const { slug, version } = known[Math.floor(Math.random() * known.length)]!;
      const isEnabled = Math.random() < 0.5;
      say({ start: 'patch', slug, version, isEnabled });
      await store.patchTool(c.bundleId, slug, version, { isEnabled });
      say({ ack: 'patch', slug, version, isEnabled, lock: store.lockActivity() });
    } else {
      const description = `run ${c.run} write ${k}`;
      say({ start: 'bundle', description });
      await store.putBundle(c.bundleId, { slug: 'crash', displayName: 'Crash test', isEnabled: true, description });
      say({ ack: 'bundle', description, lock: store.lockActivity() });
    }
  }
}

async function patchLoop(store: ToolStore, c: PatchConfig): Promise<never> {
  for (let seq = 0; ; seq++) {
    say({ start: 'patch', seq });
    try {
      const t = await store.patchTool(c.bundleId, c.slug, c.version, { isEnabled: seq % 2 === 0 });
      say({ ack: 'patch', seq, id: t.id, lostRetries: store.lockActivity().lostRetries });
    } catch (e) {
      say({ error: 'patch', seq, code: (e as { code?: string }).code, message: (e as Error).message, lostRetries: store.lockActivity().lostRetries });
    }
  }
}

async function hold(c: HoldConfig): Promise<void> {
  const locks = new LockSet(path.join(c.dataDir, 'locks'), { staleMs: c.staleMs, waitMs: 60_000 });
  await locks.withLock(c.key, 'the test lock', async (guard) => {
    say({ held: true, pid: process.pid });
    await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
    process.stdin.destroy();
    try {
      await replaceFile(nodeFs, c.file, 'from the paused holder\n', guard);
      say({ committed: true });
    } catch (e) {
      say({ error: true, code: (e as { code?: string }).code, message: (e as Error).message });
    }
  });
}

async function switchLoop(store: ToolStore, c: SwitchConfig): Promise<void> {
  let buffered = '';
  let seq = 0;
  for await (const chunk of process.stdin.setEncoding('utf8')) {
    buffered += chunk as string;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line === 'end') return;
      if (line === 'delete') await store.deleteBundle(c.bundleId);
      else await store.patchBundle(c.bundleId, { isEnabled: line === 'on' });
      say({ ack: true, seq: seq++ });
    }
  }
}

async function main(): Promise<void> {
  const c = JSON.parse(process.argv[2]!) as WorkerConfig;
  if (c.mode === 'hold') return hold(c);
  const problems = new ProblemLog(new EventBus(), () => new Date());
  const staleMs = c.mode === 'patch' ? c.staleMs : c.mode === 'crash' ? (c.staleMs ?? 2000) : 2000;
  const limit = c.mode === 'race' ? c.maxToolsPerBundle : undefined;
  const store = new ToolStore({
    dataDir: c.dataDir,
    resourcesDir: path.join(c.dataDir, 'no-resources'),
    problems,
    lock: { staleMs, waitMs: 60_000 },
    ...(limit !== undefined ? { maxToolsPerBundle: () => limit } : {}),
  });
  await store.open();
  say({ ready: true, pid: process.pid });
  if (c.mode === 'race') await race(store, c);
  else if (c.mode === 'patch') await patchLoop(store, c);
  else if (c.mode === 'switch') await switchLoop(store, c);
  else await crash(store, c);
  await store.close();
}

main().catch((e) => {
  say({ fatal: (e as Error).stack ?? String(e) });
  process.exit(1);
});
