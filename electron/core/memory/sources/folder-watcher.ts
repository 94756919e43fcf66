/**
 * The folder watcher: a stream source (docs/design/memory.md). New and changed files of a folder
 * whose path matches its globs become notices (`<time> added notes/a.md`); the source manager
 * writes each into the blocks subscribed to the source. Paused, the chokidar watcher is closed
 * (no handle stays open) and what happens meanwhile is not reported; resumed, it watches again
 * from then on. Dot files, version-control folders and the app's own temporary files of atomic
 * writes are not reported.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import picomatch from 'picomatch';
import type { WatchSourceConfig } from '../../../../shared/model/memory-sources';
import { errnoOf } from '../../lib/errno';

export interface Notice {
  sourceId: string;
  kind: 'added' | 'changed';
  /** Relative to the folder, `/` separators. */
  path: string;
  at: string;
  /** As written into the blocks: `<at> added <path>`. */
  text: string;
}

/** Notices kept for `source status`. */
const RECENT = 10;
const IGNORED = /(^|[/\\])\.(git|hg|svn)([/\\]|$)|\.tmp-\d+-[0-9a-f]+$|\.toolsmith-tmp$/;

export class FolderWatcher {
  state: 'watching' | 'paused' | 'error' = 'paused';
  error: string | undefined;
  notifications = 0;
  readonly recent: string[] = [];
  private watcher: FSWatcher | undefined;
  private include: (rel: string) => boolean;
  /** Each open/close in order: a pause right after a resume closes what the resume opened. */
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private cfg: WatchSourceConfig,
    private readonly opts: { now: () => Date; onNotice: (n: Notice) => void },
  ) {
    this.include = picomatch(cfg.include, { dot: false });
  }

  get id(): string {
    return this.cfg.id;
  }

  get config(): WatchSourceConfig {
    return this.cfg;
  }

  /** Starts watching unless the config says paused. */
  start(): Promise<void> {
    return this.step(async () => {
      if (this.cfg.paused) this.state = 'paused';
      else await this.open();
    });
  }

  pause(): Promise<void> {
    this.cfg = { ...this.cfg, paused: true };
    return this.step(async () => {
      await this.shut();
      this.state = 'paused';
      this.error = undefined;
    });
  }

  resume(): Promise<void> {
    this.cfg = { ...this.cfg, paused: false };
    return this.step(() => this.open());
  }

  /** Stops for good (the app closes, or the source is removed or changed). */
  close(): Promise<void> {
    return this.step(() => this.shut());
  }

  private step(f: () => Promise<void>): Promise<void> {
    const next = this.transition.then(f, f);
    this.transition = next.catch(() => undefined);
    return next;
  }

  private async open(): Promise<void> {
    await this.shut();
    let root: string;
    try {
      root = await fs.realpath(this.cfg.folder);
      if (!(await fs.stat(root)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    } catch (e) {
      this.state = 'error';
      this.error = errnoOf(e) === 'ENOENT' ? `the folder ${this.cfg.folder} does not exist` : errnoOf(e) === 'ENOTDIR' ? `${this.cfg.folder} is not a folder` : `cannot watch ${this.cfg.folder}: ${(e as Error).message}`;
      return;
    }
    const w = watch(root, {
      ignoreInitial: true,
      ignored: (p: string) => IGNORED.test(p),
      // A file being written is reported once it has stopped growing.
      awaitWriteFinish: { stabilityThreshold: 150, pollInterval: 25 },
    });
    const report = (kind: Notice['kind']) => (abs: string) => {
      if (this.watcher !== w) return;
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (!rel || rel.startsWith('..') || !this.include(rel)) return;
      const at = this.opts.now().toISOString();
      const text = `${at} ${kind} ${rel}`;
      this.notifications++;
      this.recent.push(text);
      if (this.recent.length > RECENT) this.recent.shift();
      this.opts.onNotice({ sourceId: this.cfg.id, kind, path: rel, at, text });
    };
    w.on('add', report('added'));
    w.on('change', report('changed'));
    w.on('error', (e) => {
      this.error = `watching ${this.cfg.folder} failed: ${(e as Error).message}`;
    });
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    this.watcher = w;
    this.state = 'watching';
    this.error = undefined;
  }

  private async shut(): Promise<void> {
    const w = this.watcher;
    this.watcher = undefined;
    if (w) await w.close();
  }
}
