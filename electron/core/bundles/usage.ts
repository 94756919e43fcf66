/**
 * Usage metrics (callCount, lastCalledAt) in `<data>/usage.json`, apart from the tool
 * files so that recording a call never rewrites a tool or moves its modifiedAt.
 *
 * record() only counts in memory and returns; a debounced flush adds this process's
 * counts to the file under the 'usage' lock (read, add, write atomically), so several
 * processes recording calls at once lose nothing. A failed flush keeps the counts for
 * the next one. Usage is a metric: counts not yet flushed when a process is killed are lost.
 *
 * Counts never read as going backwards: a batch being written is still counted until the
 * file that holds it is in `stored`, and a reload waits for the write in progress (it
 * could otherwise read the file from before it). A usage.json that cannot be read (a
 * folder in the way, permission denied) is reported; counting goes on in memory and the
 * writes are retried.
 */
import { z } from 'zod';
import { ToolUsageSchema, type ToolUsage } from '../../../shared/model/tool';
import { checkUuidV7 } from '../../../shared/model/validation';
import { SerialQueue } from '../lib/serial-queue';
import { replaceFile, toFileText, type StoreFs } from '../lib/durable-fs';
import { firstIssueMessage } from './input';
import type { LockSet } from '../lib/locks';
import type { ProblemSink, Quarantine } from './quarantine';
import { readDataFile } from './read-data';

const UsageFileSchema = z.object({ version: z.literal(1), tools: z.record(z.string(), ToolUsageSchema) }).strict();
type UsageFile = z.infer<typeof UsageFileSchema>;

interface Pending {
  count: number;
  /** Turned into text only when read or written: recording a call stays cheap. */
  lastAt: Date;
}

const lastOf = (p: Pending | undefined): string | undefined => p?.lastAt.toISOString();

export interface UsageDeps {
  file: string;
  fs: StoreFs;
  locks: LockSet;
  quarantine: Quarantine;
  problems: ProblemSink;
  now: () => Date;
  flushDelayMs: number;
}

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

export class UsageLedger {
  /** As last read from or written to the file. */
  private stored = new Map<string, ToolUsage>();
  private pending = new Map<string, Pending>();
  /** The batch being written: still counted by get() until `stored` holds it. */
  private inFlight = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  /** Loads and writes of the file, one at a time. */
  private readonly queue = new SerialQueue();
  /** Set while flushes fail, so a broken disk is reported once, not on every retry. */
  private failing = false;

  constructor(private readonly d: UsageDeps) {}

  /** Reads the file again (after the write in progress, if any). A file that cannot be read keeps the counts known so far. */
  async load(): Promise<void> {
    await this.queue.run(async () => {
      const file = await this.readFile();
      if (file) this.stored = new Map(Object.entries(file.tools));
    });
  }

  /** Counts one call; returns at once. */
  record(toolId: string): void {
    const now = this.d.now();
    const p = this.pending.get(toolId);
    if (p) {
      // Checked when it was first counted.
      p.count++;
      p.lastAt = now;
    } else {
      checkUuidV7(toolId, 'toolId');
      this.pending.set(toolId, { count: 1, lastAt: now });
    }
    this.schedule();
  }

  get(toolId: string): ToolUsage {
    const s = this.stored.get(toolId);
    const p = this.pending.get(toolId);
    const f = this.inFlight.get(toolId);
    const lastCalledAt = later(later(s?.lastCalledAt, lastOf(p)), lastOf(f));
    const callCount = (s?.callCount ?? 0) + (p?.count ?? 0) + (f?.count ?? 0);
    return lastCalledAt === undefined ? { callCount } : { callCount, lastCalledAt };
  }

  /** Writes the pending counts now. Never throws: a failure is reported and retried later. */
  flush(): Promise<void> {
    this.clearTimer();
    return this.queue.run(() => this.writePending());
  }

  async close(): Promise<void> {
    await this.flush();
    this.clearTimer();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.d.flushDelayMs);
    // Usage must not keep a process alive; close() flushes what is left.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.inFlight = batch;
    this.pending = new Map();
    try {
      await this.d.locks.withLock('usage', 'the usage file', async (guard) => {
        const file = await this.readFile();
        // Never write over a file that could not be read: its counts would be lost.
        if (!file) throw new Error(`${this.d.file} cannot be read`);
        for (const [id, p] of batch) {
          const s = file.tools[id];
          const lastCalledAt = later(s?.lastCalledAt, lastOf(p));
          file.tools[id] = { callCount: (s?.callCount ?? 0) + p.count, ...(lastCalledAt ? { lastCalledAt } : {}) };
        }
        await replaceFile(this.d.fs, this.d.file, toFileText(file), guard);
        this.stored = new Map(Object.entries(file.tools));
        this.inFlight = new Map();
      });
      this.failing = false;
    } catch (e) {
      this.inFlight = new Map();
      for (const [id, p] of batch) {
        const q = this.pending.get(id);
        this.pending.set(id, { count: p.count + (q?.count ?? 0), lastAt: q && q.lastAt > p.lastAt ? q.lastAt : p.lastAt });
      }
      if (!this.failing) {
        this.d.problems.report({ kind: 'io-error', path: this.d.file, message: `usage counts could not be saved, will retry: ${(e as Error).message}` });
      }
      this.failing = true;
      this.schedule();
    }
  }

  /**
   * The file as it is on disk; a corrupt one is set aside and counting starts again.
   * Undefined when it cannot be read (reported): a write then fails and is retried.
   */
  private async readFile(): Promise<UsageFile | undefined> {
    const r = await readDataFile(this.d.fs, this.d.file);
    if (r.kind === 'missing') return { version: 1, tools: {} };
    if (r.kind === 'unreadable') {
      if (!this.failing) this.d.problems.report({ kind: 'io-error', path: this.d.file, message: `usage counts cannot be read (${r.message}); calls are still counted and saving is retried` });
      this.failing = true;
      return undefined;
    }
    let why: string;
    if (r.kind === 'ok') {
      const parsed = UsageFileSchema.safeParse(r.value);
      if (parsed.success) return parsed.data;
      why = `does not match the usage schema: ${firstIssueMessage(parsed.error)}`;
    } else why = r.message;
    await this.d.quarantine.setAside(this.d.file, `usage file: ${why}; call counts start again from zero`);
    return { version: 1, tools: {} };
  }
}
