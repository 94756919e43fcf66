/**
 * The tool registry: bundles and tools as flat JSON files (see layout.ts), an in-memory
 * catalog loaded on open() that serves every read, and writes that commit to disk under
 * a cross-process bundle lock before the catalog and listeners hear of them.
 *
 * Writes in this process run one at a time (and reload() with them), so the catalog never
 * misses a write that raced a rescan. Other processes' writes appear after reload().
 */
import fsp from 'node:fs/promises';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { BundlePutBodySchema, EnabledPatchBodySchema, type Bundle, type ListBundlesQuery, type Page } from '../../../shared/model/bundle';
import { isToolUsable, ToolPutBodySchema, type ListToolsQuery, type RegistryChange, type Tool, type ToolPutBody, type ToolUsage, type ToolView } from '../../../shared/model/tool';
import { approvalContext, type ApprovalContext } from '../../../shared/model/tool-approval';
import { withoutBom } from '../../../shared/model/script-tool';
import { checkSlug, checkUuidV7, checkVersion, nfc, toolKey } from '../../../shared/model/validation';
import { SerialQueue } from '../lib/serial-queue';
import { applyOverride, loadBuiltins, type BuiltinBundle, type Override } from './builtins';
import { BundleSwitches, type SwitchOnDisk } from './bundle-switch';
import { Catalog } from './catalog';
import { ChangeFeed } from './change-feed';
import { AlreadyExists, attempt, createExclusive, exists, nodeFs, removeFile, replaceFile, toFileText, type CommitGuard, type StoreFs } from '../lib/durable-fs';
import { parseInput } from './input';
import { StoreLayout } from './layout';
import { listBundles, listTools, toolView } from './listing';
import { DEFAULT_LOCK_SETTINGS, LockSet, type LockActivity, type LockSettings } from '../lib/locks';
import { readBundleOnDisk, readBundleToReplace, readToolOnDisk } from './on-disk';
import { Quarantine, type ProblemSink } from './quarantine';
import { isReapable, reapBundle } from './reaper';
import { bundleRecord, extraOf, recordText, toolRecord, withExtra } from './records';
import { assertBundleActive, builtInReadOnly, bundleNotFound, storeClosed, toolExists, toolNotFound } from './refusals';
import { bundleLockKey, readOverride, scanRegistry, type ScanDeps } from './scan';
import { checkSchemaCompiles } from './schema-check';
import { readScriptFile, scriptPathOf, ScriptSources, sha256Hex, type ScriptFileState } from './script-files';
import { ScriptTrust, type TrustGrant } from './script-trust';
import { sweepTempFiles } from './sweep';
import { assertRoomForTool } from './tool-limit';
import type { ToolFileCache, ToolOrigin } from './tool-files';
import { UsageLedger } from './usage';

export interface ToolStoreOptions {
  dataDir: string;
  /** The app's resources folder; built-in bundles are read from `<resourcesDir>/bundles/`. */
  resourcesDir: string;
  problems: ProblemSink;
  now?: () => Date;
  /** Whether a local function id is registered; tools whose function is not are shown disabled. */
  isLocalFunctionKnown?: (functionId: string) => boolean;
  /** For tests: fs functions that fail on purpose. */
  fs?: StoreFs;
  lock?: Partial<LockSettings>;
  /** Debounce of usage writes. */
  usageFlushMs?: number;
  /** How long a file that fails to load must be unchanged before it is set aside (see scan.ts). */
  settleMs?: number;
  /**
   * Settings → Limits → Tools per bundle, asked at each new tool (so a change applies at once);
   * see tool-limit.ts. Absent: no limit (tests that build the store directly; the app passes it).
   */
  maxToolsPerBundle?: () => number;
}

export class ToolStore {
  private readonly layout: StoreLayout;
  private readonly fs: StoreFs;
  private readonly now: () => Date;
  private readonly locks: LockSet;
  private readonly quarantine: Quarantine;
  private readonly ledger: UsageLedger;
  private readonly reportedOnce = new Set<string>();
  private readonly changes = new ChangeFeed<RegistryChange>();
  private builtins = new Map<string, BuiltinBundle>();
  private catalog = new Catalog();
  private readonly queue = new SerialQueue();
  private readonly switches: BundleSwitches;
  private readonly trust: ScriptTrust;
  private readonly scripts = new ScriptSources();
  /** Calls allowed to run a script once without trusting it, by invocation id: its SHA-256 (allowScriptOnce). */
  private readonly scriptLeaves = new Map<string, string>();
  /** Each script tool's `.js` path, by its view (a view's bundle, slug and version never change): the name is a hash, not worth making per call. */
  private readonly scriptFiles = new WeakMap<ToolView, string>();
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly opts: ToolStoreOptions) {
    this.layout = new StoreLayout(opts.dataDir);
    this.fs = opts.fs ?? nodeFs;
    this.now = opts.now ?? (() => new Date());
    this.locks = new LockSet(this.layout.locksDir, { ...DEFAULT_LOCK_SETTINGS, ...opts.lock });
    this.quarantine = new Quarantine(this.layout, this.fs, opts.problems, this.now);
    this.switches = new BundleSwitches(this.layout, () => this.builtins);
    this.trust = new ScriptTrust({ file: this.layout.scriptTrustFile, fs: this.fs, locks: this.locks, problems: opts.problems, now: this.now });
    this.ledger = new UsageLedger({
      file: this.layout.usageFile,
      fs: this.fs,
      locks: this.locks,
      quarantine: this.quarantine,
      problems: opts.problems,
      now: this.now,
      flushDelayMs: opts.usageFlushMs ?? 2000,
    });
  }

  /** Sweeps dead writers' temp files and this machine's dead processes' locks, loads the built-ins and every user bundle, reports problems. Unchanged tool files come from `cache` (see tool-files.ts). */
  async open(opts: { cache?: ToolFileCache } = {}): Promise<void> {
    if (this.state !== 'new') throw new AppError('UNAVAILABLE', 'a tool store can be opened once');
    await attempt('create', this.layout.bundlesDir, async () => {
      await this.fs.mkdir(this.layout.bundlesDir, { recursive: true });
      await this.fs.mkdir(this.layout.overridesDir, { recursive: true });
    });
    await sweepTempFiles(this.layout, this.fs);
    await this.locks.clearDeadLocks();
    this.builtins = await loadBuiltins(this.fs, this.opts.resourcesDir, this.opts.problems);
    this.catalog = await scanRegistry({ ...this.scanDeps(), cache: opts.cache });
    await this.ledger.load();
    this.state = 'open';
  }

  /** Waits for writes in progress and saves pending usage counts. */
  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closed';
    await this.queue;
    await this.ledger.close();
    this.switches.close();
  }

  /** Reads the disk again (e.g. after another process wrote) and reports what changed. */
  async reload(): Promise<RegistryChange[]> {
    return this.serial(async () => {
      const next = await scanRegistry({ ...this.scanDeps(), cache: this.catalog.fileCache() });
      await this.ledger.load();
      const changes = Catalog.diff(this.catalog, next);
      this.catalog = next;
      for (const c of changes) this.changes.emit(c);
      return changes;
    });
  }

  onChange(listener: (c: RegistryChange) => void): () => void {
    return this.changes.add(listener);
  }

  listBundles(query: ListBundlesQuery = {}): Page<Bundle> {
    return listBundles(this.catalog, query);
  }

  /** A bundle by id, soft-deleted ones included. */
  getBundle(id: string): Bundle {
    const bundleId = checkUuidV7(id, 'bundleId');
    const b = this.catalog.bundles.get(bundleId);
    if (!b) throw bundleNotFound(bundleId);
    return b;
  }

  /** Creates or replaces a user bundle. Replacing keeps createdAt, and restores a soft-deleted bundle. */
  async putBundle(id: string, body: unknown): Promise<Bundle> {
    const bundleId = checkUuidV7(id, 'bundleId');
    const input = parseInput(BundlePutBodySchema, body);
    const builtin = this.builtins.get(bundleId);
    if (builtin) throw builtInReadOnly(builtin.config, 'replacing it');
    return this.writeBundle(bundleId, async (guard) => {
      const current = await readBundleToReplace(this.fs, this.layout, bundleId, this.quarantine);
      const stamp = this.now().toISOString();
      const slug = nfc(input.slug);
      const structural = !current || current.slug !== slug || current.displayName !== input.displayName || current.description !== input.description;
      const next = bundleRecord(withExtra({
        id: bundleId,
        slug,
        displayName: input.displayName,
        description: input.description,
        isEnabled: input.isEnabled,
        isBuiltIn: false,
        createdAt: current?.createdAt ?? stamp,
        modifiedAt: current && !structural ? current.modifiedAt : stamp,
      }, extraOf(current)));
      const file = this.layout.bundleFile(bundleId);
      await attempt('write', file, async () => {
        await this.fs.mkdir(this.layout.toolsDir(bundleId), { recursive: true });
        await replaceFile(this.fs, file, recordText(next), guard);
      });
      this.catalog.setBundle(next);
      this.changes.emit({ kind: 'bundle', op: 'put', id: bundleId });
      return next;
    }, this.layout.bundleFile(bundleId));
  }

  /** Enables or disables a bundle; modifiedAt is left alone (not a structural change). */
  async patchBundle(id: string, body: unknown): Promise<Bundle> {
    const bundleId = checkUuidV7(id, 'bundleId');
    const { isEnabled } = parseInput(EnabledPatchBodySchema, body);
    const builtin = this.builtins.get(bundleId);
    return this.writeBundle(bundleId, async (guard) => {
      if (builtin) {
        const o = await readOverride(this.scanDeps(), bundleId, true);
        return (await this.writeOverride(builtin, { ...o, isEnabled }, guard)).bundle;
      }
      const current = await readBundleOnDisk(this.fs, this.layout, bundleId);
      if (!current) throw bundleNotFound(bundleId);
      if (current.softDeletedAt !== undefined) assertBundleActive(current, 'enabling or disabling it');
      const next = bundleRecord({ ...current, isEnabled });
      if (current.isEnabled !== isEnabled) {
        const file = this.layout.bundleFile(bundleId);
        await attempt('write', file, () => replaceFile(this.fs, file, recordText(next), guard));
      }
      this.catalog.setBundle(next);
      this.changes.emit({ kind: 'bundle', op: 'patch', id: bundleId });
      return next;
    }, builtin ? this.layout.overrideFile(bundleId) : this.layout.bundleFile(bundleId));
  }

  /** Soft delete: sets softDeletedAt; the bundle is hidden from lists and reaped later. */
  async deleteBundle(id: string): Promise<Bundle> {
    const bundleId = checkUuidV7(id, 'bundleId');
    const builtin = this.builtins.get(bundleId);
    if (builtin) throw builtInReadOnly(builtin.config, 'deleting it');
    return this.writeBundle(bundleId, async (guard) => {
      const current = await readBundleOnDisk(this.fs, this.layout, bundleId);
      if (!current) throw bundleNotFound(bundleId);
      if (current.softDeletedAt !== undefined) {
        this.catalog.setBundle(current);
        return current;
      }
      const next = bundleRecord({ ...current, softDeletedAt: this.now().toISOString() });
      const file = this.layout.bundleFile(bundleId);
      await attempt('write', file, () => replaceFile(this.fs, file, recordText(next), guard));
      this.catalog.setBundle(next);
      this.changes.emit({ kind: 'bundle', op: 'delete', id: bundleId });
      return next;
    }, this.layout.bundleFile(bundleId));
  }

  /** Removes soft-deleted bundles older than two days whose tools folder is empty; returns their ids. */
  async reap(): Promise<string[]> {
    return this.serial(async () => {
      const reaped: string[] = [];
      for (const candidate of [...this.catalog.bundles.values()].filter((b) => isReapable(b, this.now()))) {
        if (!(await reapBundle({ fs: this.fs, layout: this.layout, locks: this.locks, now: this.now }, candidate.id))) continue;
        this.catalog.deleteBundle(candidate.id);
        this.changes.emit({ kind: 'bundle', op: 'delete', id: candidate.id });
        reaped.push(candidate.id);
      }
      return reaped;
    });
  }

  listTools(query: ListToolsQuery = {}): Page<ToolView> {
    return listTools(this.catalog, this.allTools(), query);
  }

  getTool(bundleId: string, slug: string, version: string): ToolView {
    const k = this.toolAddress(bundleId, slug, version);
    const t = this.catalog.findTool(k.bundleId, k.slug, k.version);
    if (!t) throw toolNotFound(k.bundleId, k.slug, k.version);
    return this.view(t);
  }

  /** Every loaded tool, disabled ones and those of deleted bundles included, in id order. */
  allTools(): ToolView[] {
    return [...this.catalog.tools.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => this.view(t));
  }

  /** The file a loaded tool came from and its record as JSON, when its fingerprint can be trusted (see tool-files.ts). */
  toolOrigin(toolId: string): ToolOrigin | undefined {
    return this.catalog.origins.get(toolId);
  }

  /** A tool by id (search hits carry ids), or undefined. */
  toolById(toolId: string): ToolView | undefined {
    const t = this.catalog.tools.get(toolId);
    return t && this.view(t);
  }

  /** Every tool of one bundle, disabled ones included. */
  toolsOf(bundleId: string): ToolView[] {
    return this.catalog.toolsOf(bundleId).map((t) => this.view(t));
  }

  /** A loaded bundle by id, soft-deleted ones included, or undefined. */
  bundleById(bundleId: string): Bundle | undefined {
    return this.catalog.bundles.get(bundleId);
  }

  /**
   * The bundle's switch as its file says it now (another process may have switched it off
   * since the catalog was loaded), or undefined when the file cannot tell. Synchronous and
   * cheap (an fstat or a stat; see bundle-switch.ts): the dispatcher asks it before every call.
   */
  switchOnDisk(bundleId: string): SwitchOnDisk | undefined {
    return this.switches.read(bundleId);
  }

  /** Effective enabled: the tool, its function and its bundle are enabled, and the bundle is not deleted. */
  isUsable(toolId: string): boolean {
    const t = this.catalog.tools.get(toolId);
    return t !== undefined && isToolUsable(this.view(t), this.catalog.bundles.get(t.bundleId));
  }

  /**
   * Creates a tool version. An existing <slug, version> is a CONFLICT and stays as it was; so
   * is a new one in a bundle that holds as many tool versions as Settings allow (tool-limit.ts).
   */
  async putTool(bundleId: string, slug: string, version: string, body: unknown, opts: { trustScript?: boolean } = {}): Promise<ToolView> {
    const k = this.toolAddress(bundleId, slug, version);
    const input = parseInput(ToolPutBodySchema, body);
    checkSchemaCompiles(input.argSchema, 'argSchema');
    checkSchemaCompiles(input.outputSchema, 'outputSchema');
    const builtin = this.builtins.get(k.bundleId);
    if (builtin) throw builtInReadOnly(builtin.config, 'adding a tool to it');
    const { record: definition, source } = storedDefinition(input);
    const view = await this.writeBundle(k.bundleId, async (guard) => {
      const bundle = await readBundleOnDisk(this.fs, this.layout, k.bundleId);
      if (!bundle) throw bundleNotFound(k.bundleId);
      assertBundleActive(bundle, 'adding tools to it');
      const file = this.layout.toolFile(k.bundleId, k.slug, k.version);
      if (await attempt('check', file, () => exists(this.fs, file))) throw toolExists(k.bundleId, k.slug, k.version);
      const limit = this.opts.maxToolsPerBundle?.() ?? Number.POSITIVE_INFINITY;
      await attempt('list', this.layout.toolsDir(k.bundleId), () => assertRoomForTool(this.fs, this.layout, bundle, limit));
      const stamp = this.now().toISOString();
      const text = toFileText(
        toolRecord({ ...definition, ...k, id: uuidv7(), tags: input.tags.map(nfc), isBuiltIn: false, createdAt: stamp, modifiedAt: stamp }),
      );
      await attempt('write', file, async () => {
        await this.fs.mkdir(this.layout.toolsDir(k.bundleId), { recursive: true });
        // The source first: a tool file is never there without the script it names (a script file
        // left alone by a write that stopped here is replaced by the next save of this version).
        if (source !== undefined) await replaceFile(this.fs, scriptPathOf(file), source, guard);
        await createExclusive(this.fs, file, text, guard).catch((e) => {
          throw e instanceof AlreadyExists ? toolExists(k.bundleId, k.slug, k.version) : e;
        });
      });
      // The catalog holds exactly what the file holds.
      const stored = JSON.parse(text) as Tool;
      this.catalog.setBundle(bundle);
      this.catalog.setTool(stored);
      this.changes.emit({ kind: 'tool', op: 'put', id: stored.id, bundleId: k.bundleId });
      return this.view(stored);
    });
    // Written by the user (not an import or the drop folder): it runs without asking. The tool is
    // saved either way; should the trust list not be written, its first run asks.
    if (opts.trustScript && view.script) {
      await this.trustScripts([view.script.sha256], 'saved').catch((e: unknown) =>
        this.opts.problems.report({ kind: 'io-error', path: this.layout.scriptTrustFile, message: `could not record that '${view.slug}' was written here (${(e as Error).message}); it asks before its first run` }),
      );
    }
    return view;
  }

  /** Enables or disables one tool version; nothing else about it changes, modifiedAt included. */
  async patchTool(bundleId: string, slug: string, version: string, body: unknown): Promise<ToolView> {
    const k = this.toolAddress(bundleId, slug, version);
    const { isEnabled } = parseInput(EnabledPatchBodySchema, body);
    const builtin = this.builtins.get(k.bundleId);
    return this.writeBundle(k.bundleId, async (guard) => {
      if (builtin) {
        const shipped = builtin.tools.find((t) => toolKey(t.slug, t.version) === toolKey(k.slug, k.version));
        if (!shipped) throw toolNotFound(k.bundleId, k.slug, k.version);
        const o = await readOverride(this.scanDeps(), k.bundleId, true);
        assertBundleActive(applyOverride(builtin, o).bundle, 'enabling or disabling its tools');
        const { tools } = await this.writeOverride(builtin, { ...o, tools: { ...o.tools, [shipped.id]: { isEnabled } } }, guard, shipped.id);
        return this.view(tools.find((t) => t.id === shipped.id)!);
      }
      const bundle = await readBundleOnDisk(this.fs, this.layout, k.bundleId);
      if (!bundle) throw bundleNotFound(k.bundleId);
      assertBundleActive(bundle, 'enabling or disabling its tools');
      const file = this.layout.toolFile(k.bundleId, k.slug, k.version);
      const current = await readToolOnDisk(this.fs, file);
      if (!current) throw toolNotFound(k.bundleId, k.slug, k.version);
      const next = toolRecord({ ...current, isEnabled });
      if (current.isEnabled !== isEnabled) await attempt('write', file, () => replaceFile(this.fs, file, recordText(next), guard));
      this.catalog.setBundle(bundle);
      this.catalog.setTool(next);
      this.changes.emit({ kind: 'tool', op: 'patch', id: next.id, bundleId: k.bundleId });
      return this.view(next);
    }, builtin ? this.layout.overrideFile(k.bundleId) : this.layout.toolFile(k.bundleId, k.slug, k.version));
  }

  /** Removes a tool version's file for good. Allowed in disabled and deleted bundles (to empty them). */
  async deleteTool(bundleId: string, slug: string, version: string): Promise<void> {
    const k = this.toolAddress(bundleId, slug, version);
    const builtin = this.builtins.get(k.bundleId);
    if (builtin) throw builtInReadOnly(builtin.config, 'deleting its tools');
    return this.writeBundle(k.bundleId, async (guard) => {
      const file = this.layout.toolFile(k.bundleId, k.slug, k.version);
      const onDisk = await readToolOnDisk(this.fs, file).catch(() => undefined);
      const id = onDisk?.id ?? this.catalog.findTool(k.bundleId, k.slug, k.version)?.id;
      const removed = await attempt('delete', file, () => removeFile(this.fs, file, guard));
      // Its script file (if any) goes after it: the tool is never there without its script.
      await attempt('delete', scriptPathOf(file), () => removeFile(this.fs, scriptPathOf(file), guard));
      const inMemory = this.catalog.findTool(k.bundleId, k.slug, k.version);
      if (inMemory) this.catalog.deleteTool(inMemory.id);
      if (!removed) throw toolNotFound(k.bundleId, k.slug, k.version);
      if (id) this.changes.emit({ kind: 'tool', op: 'delete', id, bundleId: k.bundleId });
    }, this.layout.toolFile(k.bundleId, k.slug, k.version));
  }

  /**
   * A script tool's source as its file holds it now, checked against the SHA-256 its tool file
   * recorded (`ok: false` with the problem when it is missing or was changed by hand).
   */
  async scriptSource(bundleId: string, slug: string, version: string): Promise<ScriptFileState & { sha256: string }> {
    const t = this.getTool(bundleId, slug, version);
    if (t.type !== 'script' || !t.script) throw new AppError('VALIDATION_FAILED', `'${t.slug}' is a tool of type '${t.type}', not a script tool`);
    const state = await readScriptFile(this.fs, this.layout.scriptFile(t.bundleId, t.slug, t.version), t.script.sha256);
    return { ...state, sha256: t.script.sha256 };
  }

  /** The source a call of a script tool runs: checked at every call (a stat; read again only when the file changed). UNAVAILABLE when it cannot run. */
  scriptForCall(tool: ToolView): Promise<string> {
    if (tool.type !== 'script' || !tool.script) return Promise.reject(new AppError('VALIDATION_FAILED', `'${tool.slug}' is not a script tool`));
    return this.scripts.forCall(this.scriptFileOf(tool), tool.script.sha256, tool.slug);
  }

  /** What scriptForCall answers, without a promise, when the file was found unchanged a moment ago (within a quarter of a second); else undefined. */
  scriptIfFresh(tool: ToolView): string | undefined {
    return tool.script ? this.scripts.fresh(this.scriptFileOf(tool), tool.script.sha256) : undefined;
  }

  private scriptFileOf(tool: ToolView): string {
    let file = this.scriptFiles.get(tool);
    if (file === undefined) {
      file = this.layout.scriptFile(tool.bundleId, tool.slug, tool.version);
      this.scriptFiles.set(tool, file);
    }
    return file;
  }

  /** Whether a script source runs without asking: the user wrote it here or allowed it (script-trust.ts). */
  isScriptTrusted(sha256: string): boolean {
    return this.trust.isTrusted(sha256);
  }

  /**
   * Lets one call (by its invocation id) run a script that is not trusted, without trusting it:
   * an MCP client's user confirmed that call, told it is a script from outside. The leave is
   * taken by that call's start (`takeScriptLeave`), or by the function answered, whichever first.
   */
  allowScriptOnce(invocationId: string, sha256: string): () => void {
    this.scriptLeaves.set(invocationId, sha256);
    return () => {
      if (this.scriptLeaves.get(invocationId) === sha256) this.scriptLeaves.delete(invocationId);
    };
  }

  /** Whether the call `invocationId` may run the script `sha256` once without it being trusted; the leave is used up. */
  takeScriptLeave(invocationId: string | undefined, sha256: string): boolean {
    if (this.scriptLeaves.size === 0 || invocationId === undefined || this.scriptLeaves.get(invocationId) !== sha256) return false;
    this.scriptLeaves.delete(invocationId);
    return true;
  }

  /**
   * Records that the user wrote or allowed these sources (by SHA-256). The tools that run one
   * are announced as patched: whether they ask before they run has changed.
   */
  async trustScripts(sha256s: readonly string[], how: TrustGrant): Promise<void> {
    const fresh = sha256s.filter((h) => !this.trust.isTrusted(h));
    if (fresh.length === 0) return;
    await this.trust.trust(fresh, how);
    const changed = new Set(fresh);
    for (const t of this.catalog.tools.values()) {
      if (t.script && changed.has(t.script.sha256)) this.changes.emit({ kind: 'tool', op: 'patch', id: t.id, bundleId: t.bundleId });
    }
  }

  /**
   * Trusts the script of a tool as the user was shown it: `shown` is the SHA-256 that came with the
   * source the user read (`tools.scriptSource`). Refused (CONFLICT, nothing trusted) when the `.js`
   * on disk is missing or does not match the SHA-256 the tool's `.json` records, or when what was
   * shown is not what both hold now.
   */
  async trustShownScript(bundleId: string, slug: string, version: string, shown: string): Promise<void> {
    const s = await this.scriptSource(bundleId, slug, version);
    if (!s.ok) throw new AppError('CONFLICT', `'${slug}' version '${version}' cannot be trusted: ${s.problem}`, { sha256: s.sha256 });
    if (shown !== s.sha256) {
      throw new AppError('CONFLICT', `'${slug}' version '${version}' was not trusted: its script is not the one that was shown (it changed since); read it again, then trust it`, { sha256: s.sha256, shown });
    }
    await this.trustScripts([s.sha256], 'allowed');
  }

  /**
   * The user allowed a call of `tool` where the app asked (the chat's card, Toolsmith's window for
   * an MCP client): its own script, if not trusted yet, is trusted from now on, when its `.js`
   * holds what the tool records (else nothing is trusted, and the call is refused for the file).
   * A sequence's steps are not: a step's script not trusted yet is refused at its turn, with how
   * to trust it. True when the script is trusted after this.
   */
  async trustAllowedScript(tool: ToolView): Promise<boolean> {
    if (tool.type !== 'script' || !tool.script) return false;
    if (this.trust.isTrusted(tool.script.sha256)) return true;
    const state = await readScriptFile(this.fs, this.layout.scriptFile(tool.bundleId, tool.slug, tool.version), tool.script.sha256);
    if (!state.ok) return false;
    await this.trustScripts([tool.script.sha256], 'allowed');
    return true;
  }

  /** What decides whether a tool asks before it runs (shared/model/tool-approval.ts), over this store's tools and trusted scripts. */
  approvals(): ApprovalContext {
    return approvalContext(() => this.allTools(), (h) => this.trust.isTrusted(h));
  }

  /** Counts a call; returns at once. Never touches the tool's file or modifiedAt. */
  recordUsage(toolId: string): void {
    this.assertOpen();
    this.ledger.record(toolId);
  }

  usage(toolId: string): ToolUsage {
    return this.ledger.get(checkUuidV7(toolId, 'toolId'));
  }

  /** What this store's locks did (acquired, waited, took over from dead or stale holders): for tests and diagnostics. */
  lockActivity(): LockActivity {
    return structuredClone(this.locks.activity);
  }

  /** Writes pending usage counts now (they are otherwise written after a short delay). */
  async flushUsage(): Promise<void> {
    return this.ledger.flush();
  }

  private view(t: Tool): ToolView {
    return toolView(t, this.opts.isLocalFunctionKnown, this.catalog.scriptProblems.get(t.id));
  }

  private toolAddress(bundleId: string, slug: string, version: string): { bundleId: string; slug: string; version: string } {
    return { bundleId: checkUuidV7(bundleId, 'bundleId'), slug: checkSlug(slug), version: checkVersion(version) };
  }

  private scanDeps(): ScanDeps {
    const { layout, fs, locks, quarantine, builtins, reportedOnce } = this;
    return { layout, fs, locks, quarantine, problems: this.opts.problems, builtins, reportedOnce, settleMs: this.opts.settleMs };
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw storeClosed();
  }

  /** One write at a time in this process; the caller's error is passed on. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.queue.run(fn);
  }

  /**
   * A write under the bundle's lock. `target`: the file a write that puts a fixed value
   * replaces (a switch, a bundle's fields, a deletion); a run that lost its lock is run again
   * only while that file is as the first run found it (no other process wrote it meanwhile),
   * so the retry never undoes a later write. A new tool has no target: its retry checks
   * everything again (a <slug, version> taken meanwhile is a CONFLICT).
   */
  private writeBundle<T>(bundleId: string, fn: (guard: CommitGuard) => Promise<T>, target?: string): Promise<T> {
    if (!target) return this.serial(() => this.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, fn));
    let first: string | undefined;
    const run = async (guard: CommitGuard) => {
      first ??= await fileState(target);
      return fn(guard);
    };
    const unchanged = async () => first !== undefined && (await fileState(target)) === first;
    return this.serial(() => this.locks.withLock(bundleLockKey(bundleId), `bundle ${bundleId}`, run, unchanged));
  }

  private async writeOverride(b: BuiltinBundle, next: Override, guard: CommitGuard, toolId?: string): Promise<{ bundle: Bundle; tools: Tool[] }> {
    const file = this.layout.overrideFile(b.config.id);
    await attempt('write', file, () => replaceFile(this.fs, file, recordText(next), guard));
    const applied = applyOverride(b, next);
    this.catalog.setBundle(applied.bundle);
    for (const t of applied.tools) this.catalog.setTool(t);
    this.changes.emit(toolId ? { kind: 'tool', op: 'patch', id: toolId, bundleId: b.config.id } : { kind: 'bundle', op: 'patch', id: b.config.id });
    return applied;
  }
}

/** The record fields of a put body, and a script tool's source (stored in its own file; the record keeps its SHA-256). */
function storedDefinition(input: ToolPutBody): { record: Omit<Tool, 'id' | 'bundleId' | 'slug' | 'version' | 'isBuiltIn' | 'createdAt' | 'modifiedAt'>; source?: string } {
  if (input.type !== 'script' || !input.script) {
    const { script: _none, ...rest } = input;
    return { record: rest };
  }
  // Hashed and written as it is read back (script-files.ts): without a leading BOM.
  const { source: sent, ...limits } = input.script;
  const source = withoutBom(sent);
  return { record: { ...input, script: { sha256: sha256Hex(source), ...limits } }, source };
}

/** A file's identity and content stamp (inode, size, change times in ns), or 'missing'. */
async function fileState(file: string): Promise<string> {
  try {
    const st = await fsp.stat(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return 'missing';
  }
}
