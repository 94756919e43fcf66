/**
 * A bundle's switch as its file says it now: the user's kill switch must hold in every
 * process at once, not after the watcher's reload (a quarter of a second or more later), so
 * every invocation asks the disk before it runs a tool, as every write does under the lock.
 *
 * It is on the invocation's hot path, so it is cheap and synchronous: the file (bundle.json of
 * a user bundle, `overrides/<id>.json` of a built-in one) is read and parsed only when its
 * stat (inode, links, size, mtime, ctime) differs from the last one seen. The stat is
 * synchronous so nothing runs between the check and the tool's start.
 *
 * While the file says the bundle is on, it is held open and the check is an fstat of that
 * descriptor: no path to walk, less than half a stat's cost. What the fstat sees:
 * - a write of the store replaces the file by rename: the file held has one link fewer (none
 *   left, unless a hard link elsewhere keeps it), and its ctime changes;
 * - the file removed (the bundle's folder reaped or deleted): no link left;
 * - the file renamed away: its ctime changes (where the file system marks a rename there, as
 *   Linux's do), so the path is looked at again;
 * - the file edited in place: its size, mtime or ctime changes.
 * Any change (or an fstat that fails) lets the file go and opens the path again. The one move it
 * cannot see is of a folder above the file (a bundle's folder moved away by hand): that is
 * seen when the watcher reloads. Windows does not replace a file another process holds open,
 * so there every check is a stat of the path; so is it for a bundle that is off (its calls are
 * refused anyway), and past MAX_HELD files held.
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

/** At most this many files are held open at once (one per bundle that is on and was asked about). */
export const MAX_HELD = 64;

interface Seen {
  ino: number;
  nlink: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  state: SwitchOnDisk | undefined;
}

interface Entry {
  file: string;
  builtin: BuiltinBundle | undefined;
  /** The file's descriptor while it is held open; `last` is its stat then. */
  fd: number | undefined;
  last: Seen | undefined;
}

const sameStat = (a: Seen, b: Stats) => a.ino === b.ino && a.nlink === b.nlink && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** fstatSync's options, made once: left out, they are a new object each call. */
const NUMBERS = { bigint: false } as const;

const isOn = (s: SwitchOnDisk | undefined) => s !== undefined && s.isEnabled && !s.deleted;

export class BundleSwitches {
  /** By bundle id: its file and what was seen there last; one entry per bundle ever asked about. */
  private readonly seen = new Map<string, Entry>();
  /** How many files are held open now. */
  private held = 0;
  /** Files read and parsed so far: an unchanged file is only stat'ed (tests check it). */
  reads = 0;

  /** How many files are held open now (tests check it). */
  get heldFiles(): number {
    return this.held;
  }

  constructor(
    private readonly layout: StoreLayout,
    private readonly builtins: () => ReadonlyMap<string, BuiltinBundle>,
    /** Whether files may be held open (not on Windows; tests turn it off to check the stat of the path). */
    private hold = process.platform !== 'win32',
  ) {}

  /** The bundle's switch on disk now, or undefined when its file cannot tell (the catalog decides). */
  read(bundleId: string): SwitchOnDisk | undefined {
    let entry = this.seen.get(bundleId);
    if (!entry) {
      const builtin = this.builtins().get(bundleId);
      entry = { file: builtin ? this.layout.overrideFile(bundleId) : this.layout.bundleFile(bundleId), builtin, fd: undefined, last: undefined };
      this.seen.set(bundleId, entry);
    }
    const last = entry.last;
    if (last && entry.fd !== undefined) {
      let st: Stats | undefined;
      try {
        st = fs.fstatSync(entry.fd, NUMBERS);
      } catch {
        st = undefined;
      }
      // Still linked and unchanged, its links included (a rename over its name or a removal takes one away).
      if (st && st.nlink > 0 && sameStat(last, st)) return last.state;
      this.letGo(entry);
    }
    let st: Stats | undefined;
    try {
      st = fs.statSync(entry.file, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!st) return this.missing(entry);
    // Unchanged; one that says on is held from now on if it may be (a file let go on a change, or past MAX_HELD before).
    if (last && sameStat(last, st) && !(this.hold && isOn(last.state) && this.held < MAX_HELD)) return last.state;
    return this.load(entry);
  }

  /** Lets every file held go; the next read of each opens its path again. */
  close(): void {
    this.hold = false;
    for (const entry of this.seen.values()) this.letGo(entry);
  }

  /** Opens the file, reads it unless its stat is the one seen last, and holds it while it says on. */
  private load(entry: Entry): SwitchOnDisk | undefined {
    const { builtin, last } = entry;
    let fd: number;
    try {
      fd = fs.openSync(entry.file, 'r');
    } catch (e) {
      // Removed since its stat.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return this.missing(entry);
      entry.last = undefined;
      return undefined;
    }
    let keep = false;
    try {
      const st = fs.fstatSync(fd);
      let state: SwitchOnDisk | undefined;
      if (last && sameStat(last, st)) state = last.state;
      else {
        this.reads++;
        state = parse(fd, builtin);
      }
      entry.last = { ino: st.ino, nlink: st.nlink, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, state };
      if (this.hold && isOn(state) && this.held < MAX_HELD) {
        entry.fd = fd;
        this.held++;
        keep = true;
      }
      return state;
    } catch {
      entry.last = undefined;
      return undefined;
    } finally {
      if (!keep) closeQuietly(fd);
    }
  }

  /** No override: the shipped default. No bundle.json: the bundle was removed (reaped). */
  private missing(entry: Entry): SwitchOnDisk {
    entry.last = undefined;
    return entry.builtin ? { isEnabled: entry.builtin.config.isEnabled, deleted: false } : { isEnabled: false, deleted: true };
  }

  private letGo(entry: Entry): void {
    if (entry.fd === undefined) return;
    closeQuietly(entry.fd);
    entry.fd = undefined;
    this.held--;
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing to do: the descriptor is gone either way.
  }
}

/** The switch in the open file (read from its start), or undefined when it cannot tell. */
function parse(fd: number, builtin: BuiltinBundle | undefined): SwitchOnDisk | undefined {
  let value: unknown;
  try {
    let text = fs.readFileSync(fd, 'utf8');
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
