/** Builders shared by the store's tests: a store on a temp folder with a real ProblemLog. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../../shared/errors';
import { EventBus } from '../../events';
import { ProblemLog } from '../../problems';
import type { ToolFileCache } from '../tool-files';
import { ToolStore, type ToolStoreOptions } from '../tool-store';

export const REPO_RESOURCES = path.resolve(import.meta.dirname, '../../../../resources');

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public t = Date.parse('2026-03-01T10:00:00.000Z')) {}
  now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface StoreFixture {
  store: ToolStore;
  problems: ProblemLog;
  dataDir: string;
}

/** Opens a store on `dataDir` (with `cache`, see tool-files.ts); with no resourcesDir, one without built-ins. */
export async function openStore(dataDir: string, opts: Partial<ToolStoreOptions> = {}, cache?: ToolFileCache): Promise<StoreFixture> {
  const problems = opts.problems instanceof ProblemLog ? opts.problems : new ProblemLog(new EventBus(), opts.now ?? (() => new Date()));
  const resourcesDir = opts.resourcesDir ?? path.join(dataDir, '..', 'no-resources');
  const store = new ToolStore({ dataDir, resourcesDir, problems, usageFlushMs: 20, lock: { staleMs: 2000 }, ...opts });
  await store.open({ cache });
  return { store, problems, dataDir };
}

export function bundleBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { slug: 'demo', displayName: 'Demo', isEnabled: true, description: 'A bundle for tests.', ...over };
}

export function localToolBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    displayName: 'Echo',
    description: 'Returns its input.',
    tags: ['test'],
    type: 'local',
    argSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    outputSchema: { type: 'string' },
    local: { functionId: 'test.echo' },
    isEnabled: true,
    ...over,
  };
}

export function httpToolBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...localToolBody(),
    local: undefined,
    type: 'http',
    http: { method: 'GET', urlTemplate: 'https://api.example.com/items/${id}', headers: { Accept: 'application/json' } },
    ...over,
  };
}

export const newId = (): string => uuidv7();

/** Every file under `dir`, relative, sorted. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

/** The AppError a call throws or rejects with; fails the test if it succeeds or throws something else. */
export async function rejection(p: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

/** A store in `<parent>/data` with one enabled user bundle. */
export async function storeWithBundle(parent: string, opts: Partial<ToolStoreOptions> = {}): Promise<StoreFixture & { bundleId: string }> {
  const f = await openStore(path.join(parent, 'data'), opts);
  const bundleId = newId();
  await f.store.putBundle(bundleId, bundleBody());
  return { ...f, bundleId };
}
