/**
 * The data sources of memory (docs/design/memory.md): the FileSources and folder watchers
 * set in Settings → Memory sources, kept in `memory-sources.json` in the data folder with the
 * blocks each stream writes to. It starts them at open, restarts one when its settings
 * change, answers `source` (list, status, pause, resume) and `block load` with a source_id,
 * registers the `file` tool's function while a FileSource exists, and stops every watcher at
 * close.
 *
 * How a conversation (or an agent) receives a stream: `block load` with the stream's
 * source_id makes a List block (permission Append) in its memory and subscribes it; each
 * notice is added to that block as an item, the oldest dropped when the block would exceed
 * its limit. A pinned notification block is in the model's context at every step; otherwise
 * the model reads it with `block load`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { AppError } from '../../../../shared/errors';
import type { Problem } from '../../../../shared/model/app-info';
import type { BlockInfo } from '../../../../shared/model/memory';
import { SourceConfigSchema, SourcesFileSchema, type SourceConfig, type SourceConfigInput, type SourceStatus, type SourcesFile } from '../../../../shared/model/memory-sources';
import type { LocalFunction } from '../../invoke/types';
import { writeFileAtomic } from '../../lib/atomic-write';
import { moveAside, readJson } from '../../lib/json-file';
import { SerialQueue } from '../../lib/serial-queue';
import { render } from '../block-content';
import type { Actor, BlockSourceLoader, MemoryService } from '../memory-service';
import { FileSource } from './file-source';
import { FolderWatcher, type Notice } from './folder-watcher';
import { rulesText } from './file-rules';

export const FILE_FUNCTION_ID = 'memory.file';

export interface SourceManagerOptions {
  /** `memory-sources.json`. */
  file: string;
  memory: MemoryService;
  now: () => Date;
  /** Where the `file` tool's function is registered while a FileSource exists. */
  functions?: { register(id: string, fn: LocalFunction): unknown; unregister(id: string): boolean; has(id: string): boolean };
  fileFunction?: LocalFunction;
  /** A block changed (a notice, a file loaded). */
  changed?: (owner: string, label?: string) => void;
  /** A source was added, changed, removed, paused or resumed (awaited: the tool index follows the file tool first). */
  sourcesChanged?: () => void | Promise<void>;
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Whether stream sources (folder watchers) run in this process (default true; false in the CLI). */
  streams?: boolean;
  /** Whether a FileSource folder's volume ignores case (default: asked of the disk); tests inject it. */
  ignoresCase?: (root: string) => Promise<boolean>;
}

type Running = { kind: 'files'; source: FileSource } | { kind: 'watch'; source: FolderWatcher };

export const noSuchSource = (id: string, ids: string[]) => `no data source '${id}' (there ${ids.length === 1 ? 'is' : 'are'} ${ids.length ? ids.map((i) => `'${i}'`).join(', ') : 'none: add one in Settings → Memory sources'})`;

export class SourceManager implements BlockSourceLoader {
  private readonly running = new Map<string, Running>();
  private subscriptions: SourcesFile['subscriptions'] = [];
  private readonly queue = new SerialQueue();
  private readonly noticeListeners = new Set<(n: Notice) => void>();
  private closed = false;

  constructor(private readonly opts: SourceManagerOptions) {}

  /** Reads the settings file and starts every source (a bad file is moved aside and reported). */
  async open(): Promise<void> {
    const r = await readJson(this.opts.file);
    let data: SourcesFile = { sources: [], subscriptions: [] };
    if (r.kind === 'ok') {
      const parsed = SourcesFileSchema.safeParse(r.value);
      if (parsed.success) data = parsed.data;
      else await this.setAside(`memory sources do not match the schema: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`);
    } else if (r.kind !== 'missing') await this.setAside(r.message);
    this.subscriptions = data.subscriptions;
    for (const cfg of data.sources) await this.start(cfg);
    this.syncFileTool();
  }

  /** Stops every watcher; the file tool's function is unregistered. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.run(async () => {
      for (const r of this.running.values()) if (r.kind === 'watch') await r.source.close();
      this.running.clear();
      this.syncFileTool();
    });
  }

  /** Told of every notice a stream gives (after it is written to the blocks); returns the unsubscribe. */
  onNotice(listener: (n: Notice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  configs(): SourceConfig[] {
    return [...this.running.values()].map((r) => r.source.config);
  }

  list(): SourceStatus[] {
    return [...this.running.keys()].sort().map((id) => this.status(id));
  }

  status(id: string, owner?: string): SourceStatus {
    const r = this.must(id);
    if (r.kind === 'files') {
      const c = r.source.config;
      return { id, type: 'block', kind: 'files', folder: c.folder, state: 'active', rules: c.rules, loaded: r.source.loaded(owner) };
    }
    const w = r.source;
    return {
      id,
      type: 'stream',
      kind: 'watch',
      folder: w.config.folder,
      state: w.state,
      ...(w.error ? { error: w.error } : {}),
      include: w.config.include,
      subscribers: this.subscriptions.filter((s) => s.sourceId === id && (!owner || s.owner === owner)).map(({ owner: o, label }) => ({ owner: o, label })),
      notifications: w.notifications,
      recent: [...w.recent],
    };
  }

  fileSources(): FileSource[] {
    return [...this.running.values()].flatMap((r) => (r.kind === 'files' ? [r.source] : []));
  }

  /** The FileSource a `file` call means: its source_id, the one whose label it is, or the only one. */
  async fileSourceFor(args: { source_id?: string | undefined; label?: string | undefined; path?: string | undefined }): Promise<FileSource> {
    const all = this.fileSources();
    if (args.source_id !== undefined) {
      const r = this.running.get(args.source_id);
      if (!r) throw new AppError('NOT_FOUND', noSuchSource(args.source_id, [...this.running.keys()]), { field: 'source_id' });
      if (r.kind !== 'files') throw new AppError('VALIDATION_FAILED', `source '${args.source_id}' is a folder watcher (a stream): the file tool works on FileSources (${all.map((s) => s.id).join(', ') || 'none'})`, { field: 'source_id' });
      return r.source;
    }
    if (all.length === 0) throw new AppError('UNAVAILABLE', 'no FileSource is set: add a folder in Settings → Memory sources');
    if (args.path === undefined && args.label !== undefined) {
      for (const s of all) if (await s.owns(args.label)) return s;
      throw new AppError('NOT_FOUND', `block '${args.label}' is not a file of any FileSource (${all.map((s) => s.id).join(', ')})`, { field: 'label' });
    }
    if (all.length === 1) return all[0]!;
    throw new AppError('VALIDATION_FAILED', `there are ${all.length} FileSources: name one with source_id (${all.map((s) => s.id).join(', ')})`, { field: 'source_id' });
  }

  /** Adds a source or replaces the one with its id (restarting it); the folder must exist. */
  save(input: SourceConfigInput): Promise<SourceStatus> {
    return this.queue.run(async () => {
      const parsed = SourceConfigSchema.safeParse(input);
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        throw new AppError('VALIDATION_FAILED', `${i?.path.join('.') || 'source'}: ${i?.message ?? 'invalid'}`, { field: i?.path.join('.') });
      }
      const cfg = parsed.data;
      await checkFolder(cfg.folder);
      for (const g of cfg.kind === 'files' ? cfg.rules.map((r) => r.pattern) : cfg.include) {
        try {
          picomatch(g);
        } catch (e) {
          throw new AppError('VALIDATION_FAILED', `'${g}' is not a glob pattern: ${(e as Error).message}`, { field: cfg.kind === 'files' ? 'rules' : 'include' });
        }
      }
      const old = this.running.get(cfg.id);
      if (old && old.kind !== cfg.kind) throw new AppError('CONFLICT', `source '${cfg.id}' is a ${old.kind === 'files' ? 'FileSource' : 'folder watcher'}: remove it first, or choose another id`, { field: 'id' });
      if (old?.kind === 'files' && cfg.kind === 'files') old.source.update(cfg);
      else {
        if (old?.kind === 'watch') await old.source.close();
        await this.start(cfg);
      }
      await this.persist();
      this.syncFileTool();
      await this.opts.sourcesChanged?.();
      return this.status(cfg.id);
    });
  }

  remove(id: string): Promise<{ removed: boolean }> {
    return this.queue.run(async () => {
      const r = this.running.get(id);
      if (!r) return { removed: false };
      if (r.kind === 'watch') await r.source.close();
      this.running.delete(id);
      this.subscriptions = this.subscriptions.filter((s) => s.sourceId !== id);
      await this.persist();
      this.syncFileTool();
      await this.opts.sourcesChanged?.();
      return { removed: true };
    });
  }

  /** Pauses a stream; a block source has nothing to pause: `changed` false and a message saying its state. */
  pause(id: string): Promise<{ status: SourceStatus; changed: boolean; message: string }> {
    return this.setPaused(id, true);
  }

  resume(id: string): Promise<{ status: SourceStatus; changed: boolean; message: string }> {
    return this.setPaused(id, false);
  }

  /** `block load` with a source_id: a FileSource loads the file; a stream subscribes the block to its notices. */
  loadBlock(actor: Actor, sourceId: string, label: string): Promise<{ message: string; block: BlockInfo; content?: string }> | undefined {
    const r = this.running.get(sourceId);
    if (!r) return undefined;
    if (r.kind === 'files') {
      return r.source.load(actor, label.startsWith('file:') ? { label } : { path: label }).then((x) => ({ message: x.message, block: x.block!, ...(x.content !== undefined ? { content: x.content } : {}) }));
    }
    return this.queue.run(async () => this.subscribe(actor, r.source, label));
  }

  private async subscribe(actor: Actor, w: FolderWatcher, label: string): Promise<{ message: string; block: BlockInfo; content: string }> {
    const blocks = this.opts.memory.blocks;
    if (!blocks.has(actor.owner, label)) {
      blocks.create(
        {
          owner: actor.owner,
          label,
          schema: { kind: 'List' },
          type: 'Working',
          permission: 'Append',
          description: `notifications of folder watcher '${w.id}' (${w.config.folder}): new and changed files, the latest last`,
        },
        actor.by,
      );
      this.opts.changed?.(actor.owner, label);
    }
    const info = blocks.infoOf(actor.owner, label);
    if (info.schema.kind !== 'List') throw new AppError('VALIDATION_FAILED', `block '${label}' is a ${info.schema.kind} block: notifications go into a List block; choose another label`, { field: 'label' });
    // Notices are appended without asking: only into a block whose permission lets anyone append.
    if (info.permission !== 'Append' && info.permission !== 'ReadWrite' && info.permission !== 'Admin') {
      throw new AppError('FORBIDDEN', `refused by block permission: block '${label}' is ${info.permission}, and notifications are added without asking; choose another label (a new one becomes an Append block)`, { field: 'label', layer: 'block permission' });
    }
    if (!this.subscriptions.some((s) => s.sourceId === w.id && s.owner === actor.owner && s.label === label)) {
      this.subscriptions.push({ sourceId: w.id, owner: actor.owner, label });
      await this.persist();
      await this.opts.sourcesChanged?.();
    }
    const view = blocks.view(actor.owner, label);
    const state = w.state === 'watching' ? `watching ${w.config.folder}` : w.state === 'paused' ? 'paused: `source resume` starts it again' : `not watching: ${w.error ?? 'an error'}`;
    return { message: `block '${label}' receives the notifications of folder watcher '${w.id}' (${state}); pin it to see them at every step`, block: info, content: view.text };
  }

  private setPaused(id: string, paused: boolean): Promise<{ status: SourceStatus; changed: boolean; message: string }> {
    return this.queue.run(async () => {
      const r = this.must(id);
      if (r.kind === 'files') {
        const loaded = r.source.loaded();
        return {
          status: this.status(id),
          changed: false,
          message: `source '${id}' is a block source (FileSource): it sends no notifications, so there is nothing to ${paused ? 'pause' : 'resume'}; it is active on ${r.source.config.folder} with rules ${rulesText(r.source.config.rules)}, ${loaded.length} file${loaded.length === 1 ? '' : 's'} loaded`,
        };
      }
      const w = r.source;
      if (w.config.paused === paused && (paused || w.state === 'watching')) {
        return { status: this.status(id), changed: false, message: `folder watcher '${id}' is already ${paused ? 'paused' : 'watching'}` };
      }
      if (paused) await w.pause();
      else await w.resume();
      await this.persist();
      await this.opts.sourcesChanged?.();
      const status = this.status(id);
      const message = paused
        ? `folder watcher '${id}' is paused: no notifications until \`source resume\` (changes meanwhile are not reported)`
        : status.state === 'watching'
          ? `folder watcher '${id}' is watching ${w.config.folder} again`
          : `folder watcher '${id}' could not resume: ${status.error ?? 'an error'}`;
      return { status, changed: true, message };
    });
  }

  private async start(cfg: SourceConfig): Promise<void> {
    if (cfg.kind === 'files') {
      this.running.set(cfg.id, { kind: 'files', source: new FileSource(cfg, this.opts.memory, this.opts.changed, { ignoresCase: this.opts.ignoresCase }) });
      return;
    }
    const w = new FolderWatcher(cfg, { now: this.opts.now, onNotice: (n) => this.deliver(n) });
    this.running.set(cfg.id, { kind: 'watch', source: w });
    // A short-lived process (the CLI) lists streams but leaves watching to the app.
    if (this.opts.streams === false) return;
    await w.start();
  }

  /** A notice into every subscribed block: one item more, the oldest dropped to stay within the limit. */
  private deliver(n: Notice): void {
    if (this.closed) return;
    const blocks = this.opts.memory.blocks;
    let dropped = false;
    for (const s of this.subscriptions.filter((x) => x.sourceId === n.sourceId)) {
      if (!blocks.has(s.owner, s.label)) {
        dropped = true;
        continue;
      }
      try {
        const ref = blocks.ref(s.owner, s.label);
        if (ref.info.schema.kind !== 'List') continue;
        const items = [...(ref.content() as string[]), n.text];
        while (items.length > 1 && render(items).length > ref.info.charLimit) items.shift();
        blocks.edit(s.owner, s.label, 'notify', `source:${n.sourceId}`, {
          size: render(items).length,
          next: () => items,
          apply: (doc) => {
            const list = doc.getList('content');
            const old = list.length;
            const keep = items.length - 1;
            if (old > keep) list.delete(0, old - keep);
            list.insert(keep, n.text);
          },
        });
        this.opts.changed?.(s.owner, s.label);
      } catch (e) {
        this.opts.problems?.({ kind: 'io-error', path: `${s.owner} ${s.label}`, message: `could not add a notice of source '${n.sourceId}': ${(e as Error).message}` });
      }
    }
    if (dropped) {
      // A removed block unsubscribes it.
      this.subscriptions = this.subscriptions.filter((s) => blocks.has(s.owner, s.label));
      void this.queue.run(() => this.persist()).catch(() => undefined);
    }
    for (const l of this.noticeListeners) l(n);
  }

  private syncFileTool(): void {
    const { functions, fileFunction } = this.opts;
    if (!functions || !fileFunction) return;
    const wanted = !this.closed && this.fileSources().length > 0;
    if (wanted && !functions.has(FILE_FUNCTION_ID)) functions.register(FILE_FUNCTION_ID, fileFunction);
    if (!wanted && functions.has(FILE_FUNCTION_ID)) functions.unregister(FILE_FUNCTION_ID);
  }

  private must(id: string): Running {
    const r = this.running.get(id);
    if (!r) throw new AppError('NOT_FOUND', noSuchSource(id, [...this.running.keys()]), { field: 'source_id' });
    return r;
  }

  private async persist(): Promise<void> {
    const data: SourcesFile = { sources: this.configs(), subscriptions: this.subscriptions };
    await fs.mkdir(path.dirname(this.opts.file), { recursive: true });
    await writeFileAtomic(this.opts.file, `${JSON.stringify(data, null, 2)}\n`);
  }

  private async setAside(message: string): Promise<void> {
    const movedTo = await moveAside(this.opts.file, this.opts.now()).catch(() => undefined);
    this.opts.problems?.({ kind: 'corrupt-file', path: this.opts.file, message: `${message}; no memory sources are in use`, ...(movedTo ? { movedTo } : {}) });
  }
}

async function checkFolder(folder: string): Promise<void> {
  try {
    if (!(await fs.stat(folder)).isDirectory()) throw new AppError('VALIDATION_FAILED', `${folder} is not a folder`, { field: 'folder' });
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw new AppError('VALIDATION_FAILED', `the folder ${folder} ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be used: ${(e as Error).message}`}`, { field: 'folder' });
  }
}
