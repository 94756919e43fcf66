/**
 * The tool registry as the app uses it: the flat-file store (the truth), the search index
 * derived from it, a watcher that picks up other processes' writes, and the reaper.
 */
import { watch, type FSWatcher } from 'chokidar';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Bundle } from '../../../shared/model/bundle';
import { TOOLS_PER_BUNDLE_DEFAULT } from '../../../shared/model/settings';
import { isToolUsable, type RegistryChange, type ToolView } from '../../../shared/model/tool';
import { TOOL_FIND_DEFAULT_RESULTS } from '../../../shared/model/tool-find';
import type { FindHit, SearchHit } from '../../../shared/contract';
import type { EventBus } from '../events';
import { SerialQueue } from '../lib/serial-queue';
import type { ProblemLog } from '../problems';
import { isIndexFileFailure, ToolIndex } from '../registry-index/tool-index';
import type { IndexedTool } from '../registry-index/types';
import { startReaper } from '../bundles/reaper';
import { toolDocFormat } from '../bundles/tool-files';
import { ToolStore } from '../bundles/tool-store';
import { indexedFiles, syncIndex, toIndexed, type IndexedFile } from './index-sync';
import { ReloadDebounce } from '../lib/reload-debounce';
import { SentenceSearch, type FindableTool } from './sentence-search';

export interface RegistryOptions {
  dataDir: string;
  resourcesDir: string;
  events: EventBus;
  problems: ProblemLog;
  now?: () => Date;
  isLocalFunctionKnown?: (functionId: string) => boolean;
  /** Watch the data folder for other processes' writes (default true). */
  watch?: boolean;
  /** Debounce of the watcher: a reload runs this long after the last event ... */
  watchDebounceMs?: number;
  /** ... but at most this long after the first one, however busy another writer is (default 1,000). */
  watchMaxWaitMs?: number;
  reapEveryMs?: number;
  /** Settings → Limits → Tools per bundle, asked at each new tool (default: the Settings default). */
  maxToolsPerBundle?: () => number;
}

export class Registry {
  readonly store: ToolStore;
  private index!: ToolIndex;
  private watcher: FSWatcher | null = null;
  private stopReaper: () => void = () => undefined;
  private readonly reloads: ReloadDebounce;
  private readonly reloading = new SerialQueue();
  private readonly sentences = new SentenceSearch(() => this.usableTools());

  constructor(private readonly opts: RegistryOptions) {
    this.store = new ToolStore({
      dataDir: opts.dataDir,
      resourcesDir: opts.resourcesDir,
      problems: opts.problems,
      now: opts.now,
      isLocalFunctionKnown: opts.isLocalFunctionKnown,
      maxToolsPerBundle: opts.maxToolsPerBundle ?? (() => TOOLS_PER_BUNDLE_DEFAULT),
    });
    this.reloads = new ReloadDebounce(
      () => {
        this.reloading.run(() => this.store.reload()).catch((e) => this.reloadFailed(e));
      },
      opts.watchDebounceMs ?? 250,
      opts.watchMaxWaitMs ?? 1000,
    );
  }

  /**
   * Opens the index first: a fresh one hands the store what it knows of each tool file, so
   * unchanged files are not read again (see store/tool-files.ts); then the index is synced.
   */
  async open(): Promise<void> {
    const indexDir = path.join(this.opts.dataDir, 'index');
    await fs.mkdir(indexDir, { recursive: true });
    this.index = ToolIndex.open(path.join(indexDir, 'tools.sqlite'), { docFormat: toolDocFormat(), privateFallback: true });
    if (this.index.privateReason) this.reportPrivateIndex(this.index.privateReason);
    const known = this.index.needsRebuild ? new Map<string, IndexedFile>() : indexedFiles(this.index);
    try {
      await this.store.open({ cache: known });
    } catch (e) {
      this.index.close();
      throw e;
    }
    await this.sync(known);
    this.store.onChange((c) => this.onChange(c));
    if (this.opts.watch !== false) this.startWatching();
    this.stopReaper = startReaper(() => this.store.reap(), this.opts.reapEveryMs, (e) => console.warn('reaper:', e));
  }

  async close(): Promise<void> {
    this.stopReaper();
    this.reloads.cancel();
    await this.watcher?.close();
    await this.reloading.idle();
    await this.store.close();
    this.index?.close();
  }

  /** The index matches the files again: after open, and whenever in doubt. */
  async syncAll(): Promise<void> {
    await this.sync(indexedFiles(this.index));
  }

  /** `known` must be indexedFiles() of the index as it is now (no write since). */
  private async sync(known: ReadonlyMap<string, IndexedFile>): Promise<void> {
    await syncIndex(this.index, this.store.allTools().map((t) => this.indexed(t, this.store.bundleById(t.bundleId))), known);
  }

  /** The index's view of a tool, with the file it came from when the store can vouch for it. */
  private indexed(t: ToolView, bundle: Bundle | undefined): IndexedTool {
    return toIndexed(t, bundle, this.store.toolOrigin(t.id));
  }

  search(input: { q: string; includeDisabled?: boolean; pageSize?: number; pageToken?: string }): {
    items: SearchHit[];
    nextPageToken?: string;
    recommendedPageSize: number;
  } {
    const r = this.withIndex(() => this.index.search(input));
    const items: SearchHit[] = [];
    for (const hit of r.items) {
      const tool = this.store.toolById(hit.id);
      if (tool) items.push({ tier: hit.tier, tool });
    }
    return { items, nextPageToken: r.nextPageToken, recommendedPageSize: r.recommendedPageSize };
  }

  /** Semantic search for 'tools.find' (the tool-search module sets it; docs/tool-search.md). */
  useSemantic(semantic: Parameters<SentenceSearch['useSemantic']>[0]): void {
    this.sentences.useSemantic(semantic);
  }

  /**
   * 'tools.find': the enabled tools whose slug, display name or a tag starts with the text (the
   * index's prefix tier, so a name typed with its spaces still comes first), then the sentence
   * ranking's (./sentence-search.ts), best first, each tool once.
   */
  async find(input: { q: string; limit?: number }): Promise<{ items: FindHit[] }> {
    const limit = input.limit ?? TOOL_FIND_DEFAULT_RESULTS;
    const items: FindHit[] = [];
    const seen = new Set<string>();
    for (const h of this.search({ q: input.q, pageSize: limit }).items) {
      if (h.tier !== 'prefix') break;
      items.push({ match: 'name', words: [], tool: h.tool });
      seen.add(h.tool.id);
    }
    if (items.length >= limit) return { items };
    for (const h of await this.sentences.rank(input.q, limit)) {
      if (seen.has(h.id)) continue;
      const tool = this.store.toolById(h.id);
      if (!tool) continue;
      items.push({ match: 'words', words: h.words, tool });
      if (items.length >= limit) break;
    }
    return { items };
  }

  private usableTools(): FindableTool[] {
    const out: FindableTool[] = [];
    for (const tool of this.store.allTools()) {
      const bundle = this.store.bundleById(tool.bundleId);
      if (bundle && isToolUsable(tool, bundle)) out.push({ tool, bundleSlug: bundle.slug, bundleName: bundle.displayName });
    }
    return out;
  }

  /** A reload that failed is reported (the next change on disk tries again). */
  private reloadFailed(e: unknown): void {
    console.warn('reload failed:', e);
    this.opts.problems.report({ kind: 'io-error', path: this.opts.dataDir, message: `other processes' changes could not be read: ${(e as Error).message}; the next change tries again` });
  }

  private reportPrivateIndex(reason: string): void {
    this.opts.problems.report({
      kind: 'io-error',
      path: path.join(this.opts.dataDir, 'index', 'tools.sqlite'),
      message: `the search index cannot be used (${reason}); this process searches a private index rebuilt from the tool files until it restarts`,
    });
  }

  /**
   * Runs `fn` on the index; when the index file fails under it (SQLITE_IOERR: another
   * process's index half deleted, a disk error), goes on with a private in-memory index
   * rebuilt from the store, says so, and runs `fn` again.
   */
  private withIndex<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (!isIndexFileFailure(e) || this.index.privateReason) throw e;
      try {
        this.index.close();
      } catch {
        // It is being replaced because it failed.
      }
      this.index = ToolIndex.open(':memory:', { docFormat: toolDocFormat() });
      this.index.privateReason = (e as Error).message;
      this.index.rebuild(this.store.allTools().map((t) => this.indexed(t, this.store.bundleById(t.bundleId))));
      this.reportPrivateIndex(this.index.privateReason);
      return fn();
    }
  }

  /** Keeps the index in step with each change, and tells the windows. */
  private onChange(c: RegistryChange): void {
    this.withIndex(() => this.indexChange(c));
    this.sentences.changed(c.kind === 'tool' ? c.id : undefined);
    this.opts.events.emit('store.changed', c);
  }

  private indexChange(c: RegistryChange): void {
    if (c.kind === 'tool') {
      const tool = this.store.toolById(c.id);
      if (tool) this.index.upsert(this.indexed(tool, this.store.bundleById(tool.bundleId)));
      else this.index.remove(c.id);
    } else {
      // A bundle's switch or deletion changes whether each of its tools is usable.
      const bundle = this.store.bundleById(c.id);
      const tools = this.store.toolsOf(c.id);
      this.index.upsertMany(tools.map((t) => this.indexed(t, bundle)));
      if (!bundle) {
        // Rare (a reaped bundle): a scan of the ids is fine.
        for (const id of this.index.ids()) if (this.index.get(id)?.bundleId === c.id) this.index.remove(id);
      }
    }
  }

  /** Another process may write the data folder: rescan (debounced, see reload-debounce.ts) when it does. */
  private startWatching(): void {
    const roots = [path.join(this.opts.dataDir, 'bundles'), path.join(this.opts.dataDir, 'overrides')];
    this.watcher = watch(roots, {
      ignoreInitial: true,
      ignored: (p) => /\.tmp-|\/locks\/|\.lock$/.test(p),
      depth: 3,
    });
    this.watcher.on('all', () => this.reloads.trigger());
    this.watcher.on('error', (e) => console.warn('watcher:', e));
  }
}
