/**
 * A bundle's switch as its file says it now: the user's kill switch must hold in every
 * process at once, not after the watcher's reload (a quarter of a second or more later), so
 * every invocation asks the disk before it runs a tool, as every write does under the lock.
 *
 * It is on the invocation's hot path, so it is cheap and synchronous: one stat of the file
 * (bundle.json of a user bundle, `overrides/<id>.json` of a built-in one); the file is read
 * and parsed only when its stat (inode, size, mtime, ctime) differs from the last one seen.
 * The store's writes replace files by rename, so each write makes a new inode. The stat is
 * synchronous so nothing runs between the check and the tool's start; it is a local stat
 * of a file in the app's data folder.
 *
 * What the file cannot tell (unreadable, not JSON, a field missing) leaves the decision to
 * the catalog; a user bundle whose bundle.json is gone was removed by another process.
 */
import fs, { type Stats } from 'node:fs';
import type { BuiltinBundle } from './builtins';
import type { StoreLayout } from './layout';

export interface SwitchOnDisk {
  isEnabled: boolean;
  /** Soft-deleted, or its folder removed. */
  deleted: boolean;
}

interface Seen {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  state: SwitchOnDisk | undefined;
}

const sameStat = (a: Seen, b: Stats) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

export class BundleSwitches {
  /** By bundle id: its file and what was seen there last; one entry per bundle ever asked about. */
  private readonly seen = new Map<string, { file: string; builtin: BuiltinBundle | undefined; last?: Seen }>();
  /** Files read and parsed so far: an unchanged file is only stat'ed (tests check it). */
  reads = 0;

  constructor(
    private readonly layout: StoreLayout,
    private readonly builtins: () => ReadonlyMap<string, BuiltinBundle>,
  ) {}

  /** The bundle's switch on disk now, or undefined when its file cannot tell (the catalog decides). */
  read(bundleId: string): SwitchOnDisk | undefined {
    let entry = this.seen.get(bundleId);
    if (!entry) {
      const builtin = this.builtins().get(bundleId);
      entry = { file: builtin ? this.layout.overrideFile(bundleId) : this.layout.bundleFile(bundleId), builtin };
      this.seen.set(bundleId, entry);
    }
    let st: Stats | undefined;
    try {
      st = fs.statSync(entry.file, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    const { builtin, last } = entry;
    if (!st) {
      entry.last = undefined;
      // No override: the shipped default. No bundle.json: the bundle was removed (reaped).
      return builtin ? { isEnabled: builtin.config.isEnabled, deleted: false } : { isEnabled: false, deleted: true };
    }
    if (last && sameStat(last, st)) return last.state;
    this.reads++;
    const state = parse(entry.file, builtin);
    entry.last = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, state };
    return state;
  }
}

function parse(file: string, builtin: BuiltinBundle | undefined): SwitchOnDisk | undefined {
  let value: unknown;
  try {
    let text = fs.readFileSync(file, 'utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { isEnabled?: unknown; softDeletedAt?: unknown };
  if (builtin) {
    if (v.isEnabled !== undefined && typeof v.isEnabled !== 'boolean') return undefined;
    return { isEnabled: v.isEnabled ?? builtin.config.isEnabled, deleted: false };
  }
  if (typeof v.isEnabled !== 'boolean') return undefined;
  return { isEnabled: v.isEnabled, deleted: v.softDeletedAt !== undefined };
}
