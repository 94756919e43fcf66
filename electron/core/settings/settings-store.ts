import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings, type SettingsPatch } from '../../../shared/model/settings';
import type { EventBus } from '../events';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import { ReloadDebounce } from '../registry/reload-debounce';
import { nodeFs, replaceFile, toFileText } from '../store/durable-fs';
import type { ProblemLog } from '../problems';

/**
 * App settings in `<data>/settings.json`; every change is written atomically before it is
 * acknowledged. The file is the truth: another process on the same data folder (the CLI
 * adding an allowed host on import, a second host) may change it, so a change is made to
 * the file as it is on disk, never to this process's older copy, and a watched store picks
 * up such writes on its own.
 */
export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  private readonly queue = new SerialQueue();
  private readonly file: string;
  private watcher: FSWatcher | null = null;
  private reloads: ReloadDebounce | null = null;

  constructor(
    dataDir: string,
    private readonly events: EventBus,
    private readonly problems: ProblemLog,
    private readonly now: () => Date,
  ) {
    this.file = path.join(dataDir, 'settings.json');
  }

  async load(): Promise<void> {
    const read = await this.readFile();
    if (read) this.current = read;
  }

  get(): Settings {
    return this.current;
  }

  /** Serialised so two quick changes cannot interleave their writes. */
  set(patch: SettingsPatch): Promise<Settings> {
    return this.queue.run(async () => {
      // What another process wrote since this one last read is kept.
      const onDisk = await this.readFile();
      const next = SettingsSchema.parse({ ...(onDisk ?? this.current), ...patch });
      await replaceFile(nodeFs, this.file, toFileText(next), () => undefined);
      this.current = next;
      this.events.emit('settings.changed', next);
      return next;
    });
  }

  /**
   * Follows writes by other processes: `settings.changed` is told when the file changes to
   * something else than this process's copy. `debounceMs` joins a burst of file events.
   */
  watch(debounceMs = 200): void {
    if (this.watcher) return;
    const dir = path.dirname(this.file);
    this.reloads = new ReloadDebounce(() => void this.reload(), debounceMs, debounceMs * 5);
    // The folder, not the file: an atomic replace gives the file a new inode.
    this.watcher = watch(dir, { ignoreInitial: true, depth: 0, ignored: (p) => p !== dir && p !== this.file });
    this.watcher.on('all', () => this.reloads?.trigger());
    this.watcher.on('error', (e) => console.warn('settings watcher:', e));
  }

  async close(): Promise<void> {
    this.reloads?.cancel();
    await this.watcher?.close();
    this.watcher = null;
  }

  /** Re-reads the file; a change made elsewhere becomes this process's settings. */
  reload(): Promise<void> {
    return this.queue.run(async () => {
      const read = await this.readFile();
      if (!read || toFileText(read) === toFileText(this.current)) return;
      this.current = read;
      this.events.emit('settings.changed', read);
    });
  }

  /** The settings on disk; undefined when there is no file or it was unusable (then set aside and reported). */
  private async readFile(): Promise<Settings | undefined> {
    const r = await readJson(this.file);
    if (r.kind === 'missing') return undefined;
    if (r.kind === 'ok') {
      const parsed = SettingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...(r.value as object) });
      if (parsed.success) return parsed.data;
      await this.setAside(`settings do not match the schema: ${parsed.error.issues[0]?.message ?? ''}`);
      return undefined;
    }
    await this.setAside(r.message);
    return undefined;
  }

  private async setAside(message: string): Promise<void> {
    const movedTo = await moveAside(this.file, this.now());
    this.problems.report({ kind: 'corrupt-file', path: this.file, message: `${message}; defaults are in use`, movedTo });
  }
}
