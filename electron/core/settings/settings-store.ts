import path from 'node:path';
import { DEFAULT_SETTINGS, SettingsSchema, type Settings, type SettingsPatch } from '../../../shared/model/settings';
import type { EventBus } from '../events';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import { nodeFs, replaceFile, toFileText } from '../store/durable-fs';
import type { ProblemLog } from '../problems';

/** App settings in `<data>/settings.json`; every change is written atomically before it is acknowledged. */
export class SettingsStore {
  private current: Settings = DEFAULT_SETTINGS;
  private readonly queue = new SerialQueue();
  private readonly file: string;

  constructor(
    dataDir: string,
    private readonly events: EventBus,
    private readonly problems: ProblemLog,
    private readonly now: () => Date,
  ) {
    this.file = path.join(dataDir, 'settings.json');
  }

  async load(): Promise<void> {
    const r = await readJson(this.file);
    if (r.kind === 'missing') return;
    if (r.kind === 'ok') {
      const parsed = SettingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...(r.value as object) });
      if (parsed.success) {
        this.current = parsed.data;
        return;
      }
      await this.setAside(`settings do not match the schema: ${parsed.error.issues[0]?.message ?? ''}`);
      return;
    }
    await this.setAside(r.message);
  }

  get(): Settings {
    return this.current;
  }

  /** Serialised so two quick changes cannot interleave their writes. */
  set(patch: SettingsPatch): Promise<Settings> {
    return this.queue.run(async () => {
      const next = SettingsSchema.parse({ ...this.current, ...patch });
      await replaceFile(nodeFs, this.file, toFileText(next), () => undefined);
      this.current = next;
      this.events.emit('settings.changed', next);
      return next;
    });
  }

  private async setAside(message: string): Promise<void> {
    const movedTo = await moveAside(this.file, this.now());
    this.problems.report({ kind: 'corrupt-file', path: this.file, message: `${message}; defaults are in use`, movedTo });
  }
}
