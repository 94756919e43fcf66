import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings, type SettingsPatch } from '../../../shared/model/settings';
import type { EventBus } from '../events';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import { ReloadDebounce } from '../registry/reload-debounce';
import { nodeFs, replaceFile, toFileText } from '../store/durable-fs';
import { LockSet } from '../store/locks';
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

  constructor(
    dataDir: string,
    private readonly events: EventBus,
    private readonly problems: ProblemLog,
    private readonly now: () => Date,
  ) {
    this.file = path.join(dataDir, 'settings.json');
    this.locks = new LockSet(path.join(dataDir, 'locks'));
  }

  /** Reads the file; one that is unusable is set aside (and reported) and the defaults are used. */
  async load(): Promise<void> {
    const r = await this.read();
    if (r.kind === 'ok') this.current = r.settings;
    else if (r.kind === 'bad') await this.setAside(`${r.message}; defaults are in use`);
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
        // An unusable file is set aside; this process's settings are what the change is made to.
        if (r.kind === 'bad') await this.setAside(`${r.message}; this process's settings were written in its place`);
        const base = r.kind === 'ok' ? r.settings : this.current;
        const next = SettingsSchema.parse({ ...base, ...change(base) });
        await replaceFile(nodeFs, this.file, toFileText(next), guard);
        this.current = next;
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
        if (r.kind !== 'ok' || toFileText(r.settings) === toFileText(this.current)) return;
        this.current = r.settings;
        this.events.emit('settings.changed', r.settings);
      })
      .catch((e: unknown) => console.warn(`settings: could not read ${this.file} again: ${(e as Error).message}`));
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
