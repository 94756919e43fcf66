import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { AppError } from '../../../shared/errors';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings, type SettingsPatch } from '../../../shared/model/settings';
import type { EventBus } from '../events';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import { ReloadDebounce } from '../lib/reload-debounce';
import { nodeFs, replaceFile, toFileText } from '../lib/durable-fs';
import { LockSet } from '../lib/locks';
import type { ProblemLog } from '../problems';

/**
 * App settings in `<data>/settings.json`; every change is written atomically before it is
 * acknowledged. The file is the truth: another process on the same data folder (the CLI
 * adding an allowed host on import, `toolsmith mcp`, a second host) may change it. So a
 * change is made, under the data folder's `settings` lock, to the file as it is on disk,
 * never to this process's older copy; and a watched store takes up other processes' writes.
 */
export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  private readonly queue = new SerialQueue();
  private readonly file: string;
  private readonly locks: LockSet;
  private watcher: FSWatcher | null = null;
  private reloads: ReloadDebounce | null = null;
  private closed = false;
  /** This process's settings came from a usable file (or it wrote one). */
  private loadedGood = false;

  constructor(
    dataDir: string,
    private readonly events: EventBus,
    private readonly problems: ProblemLog,
    private readonly now: () => Date,
  ) {
    this.file = path.join(dataDir, 'settings.json');
    this.locks = new LockSet(path.join(dataDir, 'locks'));
  }

  /**
   * Reads the file. One that is unusable is reported and the defaults are used; the app that
   * owns the data folder (`setAsideBad`) also sets it aside, under the lock. A command on
   * the side (the CLI, `toolsmith mcp`) leaves it, and refuses to change the settings until
   * the file is usable, so it never writes its defaults over the app's settings.
   */
  async load(opts: { setAsideBad?: boolean } = {}): Promise<void> {
    const r = await this.read();
    if (r.kind === 'ok') {
      this.current = r.settings;
      this.loadedGood = true;
      return;
    }
    if (r.kind !== 'bad') return;
    if (opts.setAsideBad === false) {
      this.problems.report({ kind: 'corrupt-file', path: this.file, message: `${r.message}; defaults are in use until it is fixed` });
      return;
    }
    await this.locks.withLock('settings', 'the settings', async () => {
      const again = await this.read();
      if (again.kind === 'bad') await this.setAside(`${again.message}; defaults are in use`);
      else if (again.kind === 'ok') {
        this.current = again.settings;
        this.loadedGood = true;
      }
    });
  }

  get(): Settings {
    return this.current;
  }

  /** Serialised so two quick changes cannot interleave their writes. */
  set(patch: SettingsPatch): Promise<Settings> {
    return this.update(() => patch);
  }

  /**
   * A change computed from the settings as they are on disk when it is made (another
   * process's latest write included), under the `settings` lock.
   */
  update(change: (settings: Settings) => SettingsPatch): Promise<Settings> {
    return this.queue.run(() =>
      this.locks.withLock('settings', 'the settings', async (guard) => {
        const r = await this.read();
        if (r.kind === 'bad') {
          // This process's settings are written in place of an unusable file only if they came from a usable one.
          if (!this.loadedGood) throw new AppError('UNAVAILABLE', `${this.file} is not usable (${r.message}); nothing was changed: fix the file, or start the app, which sets it aside`);
          await this.setAside(`${r.message}; this process's settings were written in its place`);
        }
        const base = r.kind === 'ok' ? r.settings : this.current;
        const next = SettingsSchema.parse({ ...base, ...change(base) });
        if (r.kind === 'ok' && toFileText(next) === toFileText(base)) {
          // Nothing to change on disk; this process takes up what is there.
          this.adopt(base);
          return base;
        }
        await replaceFile(nodeFs, this.file, toFileText(next), guard);
        this.current = next;
        this.loadedGood = true;
        this.events.emit('settings.changed', next);
        return next;
      }),
    );
  }

  /**
   * Follows other processes' writes: `settings.changed` is told when the file holds other
   * settings than this process's copy. `debounceMs` joins a burst of file events.
   */
  watch(debounceMs = 200): void {
    if (this.watcher || this.closed) return;
    const dir = path.dirname(this.file);
    this.reloads = new ReloadDebounce(() => void this.reload(), debounceMs, debounceMs * 5);
    // The folder, not the file: an atomic replace gives the file a new inode.
    this.watcher = watch(dir, { ignoreInitial: true, depth: 0, ignored: (p) => p !== dir && p !== this.file });
    this.watcher.on('all', () => this.reloads?.trigger());
    this.watcher.on('error', (e) => console.warn('settings watcher:', e));
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
    this.reloads?.cancel();
    await this.queue.idle();
  }

  /**
   * Takes up what another process wrote. A file that is missing or unusable here (being
   * edited by hand, say) changes nothing and is not set aside: this process keeps its
   * settings, and `load` or the next change deals with the file. Never throws.
   */
  reload(): Promise<void> {
    return this.queue
      .run(async () => {
        if (this.closed) return;
        const r = await this.read();
        if (r.kind === 'ok') this.adopt(r.settings);
      })
      .catch((e: unknown) => console.warn(`settings: could not read ${this.file} again: ${(e as Error).message}`));
  }

  /** Settings read from the file become this process's; `settings.changed` is told when they differ from its copy. */
  private adopt(settings: Settings): void {
    const changed = toFileText(settings) !== toFileText(this.current);
    this.current = settings;
    this.loadedGood = true;
    if (changed) this.events.emit('settings.changed', settings);
  }

  private async read(): Promise<{ kind: 'ok'; settings: Settings } | { kind: 'missing' } | { kind: 'bad'; message: string }> {
    const r = await readJson(this.file);
    if (r.kind === 'missing') return { kind: 'missing' };
    if (r.kind !== 'ok') return { kind: 'bad', message: r.message };
    const parsed = SettingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...(r.value as object) });
    if (parsed.success) return { kind: 'ok', settings: parsed.data };
    return { kind: 'bad', message: `settings do not match the schema: ${parsed.error.issues[0]?.message ?? ''}` };
  }

  private async setAside(message: string): Promise<void> {
    try {
      const movedTo = await moveAside(this.file, this.now());
      this.problems.report({ kind: 'corrupt-file', path: this.file, message, movedTo });
    } catch (e) {
      // Another process may have set it aside first.
      this.problems.report({ kind: 'corrupt-file', path: this.file, message: `${message} (it could not be set aside: ${(e as Error).message})` });
    }
  }
}
