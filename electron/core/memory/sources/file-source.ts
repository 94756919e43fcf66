/**
 * FileSource (docs/design/memory.md): a folder whose files a model loads into Working blocks,
 * edits, and saves back, through the `file` tool. A file's block is labelled
 * `file:{hash8}:{relative}` (hash8: the first 8 hex digits of the SHA-256 of the file's real
 * absolute path), so two folders' `notes.md` never share a block.
 *
 * Every operation goes through two layers: the source's glob rules give the path a
 * MemoryPermission (./file-rules.ts; the table is ../permissions.ts), then the agent's
 * AllowedOperations; Partner and Human (and a delete below Admin) wait for the user's consent.
 * Paths never leave the folder: `..`, absolute paths and symlinks pointing outside are
 * refused (../../lib/workspace.ts resolves them). A symlink that stays inside is followed, and
 * the file is then named by its own path (where the link leads): the rules judge the file that
 * is acted on, and it has one block whichever name reached it; only `delete` refuses a path
 * through a link (it would remove the file the link leads to). Every read opens the file first and
 * then checks the opened file is the one inside the folder (openFileInWorkspace, as the
 * workspace's readfile does), so a path flipped to a symlink meanwhile is never read through;
 * a write or delete checks the file's folder is still itself right before it commits.
 * The rules match paths in NFC, and without case on a volume that ignores case
 * (./file-rules.ts, ./volume-case.ts, asked once per folder).
 *
 * Sync is explicit (v1): `load` reads the disk
 * into the block and remembers its mtime and SHA-256; `save` writes the block back atomically,
 * and refuses with MODIFIED_EXTERNALLY when the file's content changed since (a touch that
 * changes only the mtime is not a conflict). What was loaded is remembered while the app runs.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../../shared/errors';
import { DEFAULT_BLOCK_CHAR_LIMIT, MAX_BLOCK_CHAR_LIMIT, type BlockInfo, type MemoryOperation, type MemoryPermission } from '../../../../shared/model/memory';
import type { FileSourceConfig } from '../../../../shared/model/memory-sources';
import { AlreadyExists, writeFileAtomic } from '../../lib/atomic-write';
import { errnoOf } from '../../lib/errno';
import { openFileInWorkspace, resolveInWorkspace, type WorkspacePath } from '../../lib/workspace';
import { writeValue } from '../block-content';
import type { Actor, MemoryService } from '../memory-service';
import { agentDecision, refusalText, type Decision } from '../permissions';
import { compileRules, fileDecision, type CompiledRules } from './file-rules';
import { platformIgnoresCase, volumeIgnoresCase } from './volume-case';

/** The exact refusal of a save when the file changed on disk since it was loaded (docs/design/memory.md). */
export const MODIFIED_EXTERNALLY = 'file modified externally, use `file load` to refresh';

export const FILE_LABEL_PREFIX = 'file:';

export interface FileResult {
  op: 'load' | 'save' | 'create' | 'delete' | 'append' | 'replace';
  message: string;
  path: string;
  label: string;
  block?: BlockInfo;
  content?: string;
}

interface Tracked {
  owner: string;
  label: string;
  rel: string;
  mtimeMs: number;
  hash: string;
  /** The text on disk when it was loaded or saved. */
  text: string;
}

interface Resolved {
  abs: string;
  rel: string;
  label: string;
  /** The folder's real path, for the checks of reads and writes. */
  root: string;
  /** The caller's path when it went through a symbolic link inside the folder (`rel` is where it leads). */
  via?: string;
}

export interface FileSourceOptions {
  /** Whether a folder's volume ignores case (default: asked of the disk, ./volume-case.ts); tests inject it. */
  ignoresCase?: (root: string) => Promise<boolean>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const hash8 = (absPath: string) => createHash('sha256').update(absPath, 'utf8').digest('hex').slice(0, 8);
export const fileLabel = (absPath: string, rel: string) => `${FILE_LABEL_PREFIX}${hash8(absPath)}:${rel}`;

/** `file:{hash8}:{relative}` → its parts, or undefined. */
export function parseFileLabel(label: string): { hash: string; rel: string } | undefined {
  const m = /^file:([0-9a-f]{8}):(.+)$/.exec(label);
  return m ? { hash: m[1]!, rel: m[2]! } : undefined;
}

export class FileSource {
  private rules: CompiledRules;
  private readonly tracked = new Map<string, Tracked>();
  /** Whether the rules match without case: the platform's default until the folder's volume is asked. */
  private ignoreCase = platformIgnoresCase();
  /** The folder whose volume was asked, and its answer (asked once per folder). */
  private caseOf?: { root: string; answer: Promise<boolean> };

  constructor(
    private cfg: FileSourceConfig,
    private readonly memory: MemoryService,
    private readonly changed: (owner: string, label?: string) => void = () => undefined,
    private readonly opts: FileSourceOptions = {},
  ) {
    this.rules = compileRules(cfg.rules, { ignoreCase: this.ignoreCase });
  }

  get id(): string {
    return this.cfg.id;
  }

  get config(): FileSourceConfig {
    return this.cfg;
  }

  /** New rules (or folder) apply to the next operation; a new folder forgets what was loaded. */
  update(cfg: FileSourceConfig): void {
    if (cfg.folder !== this.cfg.folder) this.tracked.clear();
    this.cfg = cfg;
    this.rules = compileRules(cfg.rules, { ignoreCase: this.ignoreCase });
  }

  /** Asks once per folder whether its volume ignores case, and compiles the rules to match. */
  private async matchCaseOf(root: string): Promise<void> {
    if (this.caseOf?.root !== root) {
      const ask = this.opts.ignoresCase ?? volumeIgnoresCase;
      this.caseOf = { root, answer: ask(root).catch(() => platformIgnoresCase()) };
    }
    const ignoreCase = await this.caseOf.answer;
    if (ignoreCase !== this.ignoreCase) {
      this.ignoreCase = ignoreCase;
      this.rules = compileRules(this.cfg.rules, { ignoreCase });
    }
  }

  /** The files loaded as blocks now (blocks removed meanwhile are forgotten). */
  loaded(owner?: string): { owner: string; label: string; path: string }[] {
    const out: { owner: string; label: string; path: string }[] = [];
    for (const [k, t] of this.tracked) {
      if (!this.memory.blocks.has(t.owner, t.label)) {
        this.tracked.delete(k);
        continue;
      }
      if (!owner || t.owner === owner) out.push({ owner: t.owner, label: t.label, path: t.rel });
    }
    return out;
  }

  /** Whether `label` names a file of this source (its hash matches the file's real path here). */
  async owns(label: string): Promise<boolean> {
    const parsed = parseFileLabel(label);
    if (!parsed) return false;
    try {
      return (await this.resolve(parsed.rel)).label === label;
    } catch {
      return false;
    }
  }

  /** A caller's `path` or `label` → the file. */
  async target(args: { path?: string | undefined; label?: string | undefined }): Promise<Resolved> {
    if (args.path !== undefined) return this.resolve(args.path);
    if (args.label === undefined) throw new AppError('VALIDATION_FAILED', 'path is required (or label: a file block\'s label, file:{hash8}:{path})', { field: 'path' });
    const parsed = parseFileLabel(args.label);
    if (!parsed) throw new AppError('VALIDATION_FAILED', `'${args.label}' is not a file block's label (file:{hash8}:{path}); give path instead`, { field: 'label' });
    const r = await this.resolve(parsed.rel, 'label');
    if (r.label !== args.label) throw new AppError('NOT_FOUND', `block '${args.label}' is not a file of source '${this.id}' (its files are labelled ${r.label.slice(0, 14)}…)`, { field: 'label' });
    return r;
  }

  async load(actor: Actor, args: { path?: string | undefined; label?: string | undefined }): Promise<FileResult> {
    const f = await this.target(args);
    const perm = this.permit(actor, f.rel, 'file.load');
    const disk = await this.read(f);
    const block = this.upsert(actor, f, disk.text, perm.permission!, 'load');
    this.track(actor, f, disk);
    return {
      op: 'load',
      message: `'${f.rel}'${f.via !== undefined ? ` (reached through the symbolic link '${f.via}')` : ''} loaded into block '${f.label}' (${disk.text.length} characters, permission ${block.permission}); edit it with file append or replace (or block_edit), then file save writes it back`,
      path: f.rel,
      label: f.label,
      // The text before the metadata: a card shows the start of a result first.
      content: disk.text,
      block,
    };
  }

  async save(actor: Actor, args: { path?: string | undefined; label?: string | undefined }, signal: AbortSignal): Promise<FileResult> {
    const f = await this.target(args);
    const t = this.tracked.get(key(actor.owner, f.rel));
    if (!t || !this.memory.blocks.has(actor.owner, f.label)) {
      // The rules and the agent's layer still speak first: a refused save is refused either way.
      this.permit(actor, f.rel, 'file.save');
      throw new AppError('CONFLICT', `'${f.rel}' is not loaded in this memory: use \`file load\` first, edit the block, then save`, { path: f.rel });
    }
    const view = this.memory.blocks.view(actor.owner, f.label);
    const text = view.text;
    const onlyAppends = text.startsWith(t.text);
    const perm = this.permit(actor, f.rel, 'file.save', onlyAppends ? 'file.append' : 'file.save');
    await this.unchanged(f, t);
    if (perm.kind === 'needs-human') {
      await this.memory.askConsent(actor, 'file.save', view, perm.reason, `save block '${f.label}' to '${f.rel}' in ${this.cfg.folder}`, signal, { before: t.text, after: text });
      await this.unchanged(f, t);
    }
    if (text !== t.text) await this.write(f, text, false);
    this.track(actor, f, await this.stat(f, text));
    const info = this.memory.blocks.infoOf(actor.owner, f.label);
    return { op: 'save', message: text === t.text ? `'${f.rel}' was already as the block has it; nothing to write` : `'${f.rel}' saved (${text.length} characters)`, path: f.rel, label: f.label, block: info };
  }

  async create(actor: Actor, args: { path?: string | undefined; content?: string | undefined }, signal: AbortSignal): Promise<FileResult> {
    if (args.path === undefined) throw new AppError('VALIDATION_FAILED', 'file create needs path: the new file, relative to the source folder', { field: 'path' });
    const f = await this.resolve(args.path);
    const content = args.content ?? '';
    const perm = this.permit(actor, f.rel, 'file.create');
    if (await this.exists(f)) throw new AppError('CONFLICT', `'${f.rel}' already exists: use \`file load\` to edit it`, { path: f.rel });
    if (perm.kind === 'needs-human') {
      await this.memory.askConsent(actor, 'file.create', { id: f.label, label: f.label, permission: perm.permission! }, perm.reason, `create '${f.rel}' in ${this.cfg.folder}`, signal, { before: '', after: content });
    }
    await fs.mkdir(path.dirname(f.abs), { recursive: true }).catch((e: unknown) => {
      throw fileError(e, f.rel, this.id);
    });
    await this.write(f, content, true);
    const block = this.upsert(actor, f, content, perm.permission!, 'create');
    this.track(actor, f, await this.stat(f, content));
    return { op: 'create', message: `'${f.rel}' created (${content.length} characters) and loaded into block '${f.label}'`, path: f.rel, label: f.label, block };
  }

  async delete(actor: Actor, args: { path?: string | undefined; label?: string | undefined }, signal: AbortSignal): Promise<FileResult> {
    const f = await this.target(args);
    if (f.via !== undefined) {
      // Deleting through a link would remove the file it leads to, not the link the caller named.
      throw new AppError(
        'FORBIDDEN',
        `'${f.via}' goes through a symbolic link in the folder of source '${this.id}': delete would remove '${f.rel}', the file it leads to, not the link; to delete that file, name it by its own path, '${f.rel}'`,
        { path: f.via, rule: 'symlink-inside' },
      );
    }
    const perm = this.permit(actor, f.rel, 'file.delete');
    if (!(await this.exists(f))) throw new AppError('NOT_FOUND', `'${f.rel}' does not exist in the folder of source '${this.id}'`, { path: f.rel });
    if (perm.kind === 'needs-human') {
      await this.memory.askConsent(actor, 'file.delete', { id: f.label, label: f.label, permission: perm.permission! }, perm.reason, `delete '${f.rel}' from ${this.cfg.folder}`, signal);
    }
    try {
      this.folderUnchanged(f);
      await fs.unlink(f.abs);
    } catch (e) {
      throw fileError(e, f.rel, this.id);
    }
    const hadBlock = this.memory.blocks.remove(actor.owner, f.label);
    this.tracked.delete(key(actor.owner, f.rel));
    if (hadBlock) this.changed(actor.owner, f.label);
    return { op: 'delete', message: `'${f.rel}' deleted${hadBlock ? `, and its block '${f.label}' removed` : ''}`, path: f.rel, label: f.label };
  }

  /** `append` and `replace` edit the file's block (loading it first when needed); `file save` writes it to disk. */
  async edit(actor: Actor, input: { op: 'append'; content: string } | { op: 'replace'; old: string; new: string }, args: { path?: string | undefined; label?: string | undefined }, signal: AbortSignal): Promise<FileResult> {
    const f = await this.target(args);
    const op: MemoryOperation = input.op === 'append' ? 'file.append' : 'file.replace';
    const perm = this.permit(actor, f.rel, op);
    if (!this.tracked.has(key(actor.owner, f.rel)) || !this.memory.blocks.has(actor.owner, f.label)) await this.load(actor, { path: f.rel });
    // The rules are the truth for a file's block: its permission follows them.
    if (this.memory.blocks.infoOf(actor.owner, f.label).permission !== perm.permission) this.memory.blocks.setMeta(actor.owner, f.label, { permission: perm.permission! });
    const r = await this.memory.blockEdit(actor, { label: f.label, ...input }, signal, op);
    return { op: input.op, message: `${r.message}; \`file save\` writes it to '${f.rel}'`, path: f.rel, label: f.label, block: r.block };
  }

  /** Layer 1 (the rules), then layer 2 (the agent's AllowedOperations); refusals throw, consent is the caller's. */
  private permit(actor: Actor, rel: string, op: MemoryOperation, asOp: MemoryOperation = op): Decision & { permission?: MemoryPermission } {
    const rules = fileDecision(this.id, this.rules, rel, op, asOp);
    if (rules.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(rules), { layer: rules.layer, operation: op, path: rel });
    const agent = agentDecision(actor.grant, op);
    if (agent.kind === 'refused') throw new AppError('FORBIDDEN', refusalText(agent), { layer: agent.layer, operation: op, path: rel });
    return rules;
  }

  private async resolve(p: string, field = 'path'): Promise<Resolved> {
    try {
      const st = await fs.stat(this.cfg.folder);
      if (!st.isDirectory()) throw new AppError('UNAVAILABLE', `the folder of source '${this.id}' (${this.cfg.folder}) is not a folder`);
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError('UNAVAILABLE', `the folder of source '${this.id}' (${this.cfg.folder}) ${errnoOf(e) === 'ENOENT' ? 'does not exist' : `cannot be read: ${(e as Error).message}`}; change it in Settings → Memory sources`);
    }
    const r = await resolveInWorkspace(this.cfg.folder, p, { field, rootName: `the folder of source '${this.id}'` });
    if (r.rel === '.') throw new AppError('VALIDATION_FAILED', `${field} names the folder of source '${this.id}' itself: name a file inside it`, { field });
    // A symbolic link that stays inside is followed, and the file is named by its own path:
    // the rules judge the file that is acted on (a link named like a writable file cannot
    // open a read-only one for writing), and a file has one block whichever name reached it.
    const real = path.relative(r.root, r.abs).split(path.sep).join('/');
    const label = fileLabel(r.abs, real);
    if (label.length > 200) throw new AppError('VALIDATION_FAILED', `'${real}' is too long a path for a block label (file:{hash8}:{path} at most 200 characters)`, { field });
    await this.matchCaseOf(r.root);
    // A spelling the disk holds otherwise (case on a volume that ignores it, NFC/NFD) is not a link.
    const spelled = (x: string) => (this.ignoreCase ? x.normalize('NFC').toLowerCase() : x.normalize('NFC'));
    return { abs: r.abs, rel: real, label, root: r.root, ...(spelled(real) !== spelled(r.rel) ? { via: r.rel } : {}) };
  }

  private async read(f: Resolved): Promise<{ text: string; mtimeMs: number; hash: string }> {
    let buf: Buffer;
    let mtimeMs: number;
    try {
      const { fh, stat } = await openFileInWorkspace(workspacePath(f), { folder: `'${f.rel}' is not a file` });
      try {
        if (stat.size > MAX_BLOCK_CHAR_LIMIT * 4) throw new AppError('PAYLOAD_TOO_LARGE', `'${f.rel}' is ${stat.size} bytes: too large for a block (at most ${MAX_BLOCK_CHAR_LIMIT} characters)`, { path: f.rel });
        buf = await fh.readFile();
        mtimeMs = stat.mtimeMs;
      } finally {
        await fh.close();
      }
    } catch (e) {
      throw fileError(e, f.rel, this.id);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw new AppError('VALIDATION_FAILED', `'${f.rel}' is not UTF-8 text: a block holds text only`, { path: f.rel });
    }
    if (text.length > MAX_BLOCK_CHAR_LIMIT) throw new AppError('PAYLOAD_TOO_LARGE', `'${f.rel}' has ${text.length} characters: too many for a block (at most ${MAX_BLOCK_CHAR_LIMIT})`, { path: f.rel });
    return { text, mtimeMs, hash: sha256(text) };
  }

  private async stat(f: Resolved, text: string): Promise<{ text: string; mtimeMs: number; hash: string }> {
    const st = await fs.lstat(f.abs).catch((e: unknown) => {
      throw fileError(e, f.rel, this.id);
    });
    return { text, mtimeMs: st.mtimeMs, hash: sha256(text) };
  }

  /** The disk as it was loaded (the content's SHA-256; the mtime is kept in the details), else MODIFIED_EXTERNALLY. */
  private async unchanged(f: Resolved, t: Tracked): Promise<void> {
    let now: { mtimeMs: number; hash: string };
    try {
      now = await this.read(f);
    } catch (e) {
      if (e instanceof AppError && e.code === 'NOT_FOUND') throw new AppError('CONFLICT', MODIFIED_EXTERNALLY, { path: f.rel, reason: 'deleted' });
      throw e;
    }
    if (now.hash !== t.hash) throw new AppError('CONFLICT', MODIFIED_EXTERNALLY, { path: f.rel, loadedMtimeMs: t.mtimeMs, diskMtimeMs: now.mtimeMs });
  }

  private async exists(f: Resolved): Promise<boolean> {
    try {
      await fs.lstat(f.abs);
      return true;
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return false;
      throw fileError(e, f.rel, this.id);
    }
  }

  private async write(f: Resolved, text: string, exclusive: boolean): Promise<void> {
    try {
      const beforeCommit = () => this.folderUnchanged(f);
      await writeFileAtomic(f.abs, text, exclusive ? { exclusive: true, beforeCommit } : { keepMode: true, beforeCommit });
    } catch (e) {
      if (e instanceof AlreadyExists || errnoOf(e) === 'EEXIST') throw new AppError('CONFLICT', `'${f.rel}' already exists: use \`file load\` to edit it`, { path: f.rel });
      throw fileError(e, f.rel, this.id);
    }
  }

  /**
   * Right before a write or a delete commits: the file's folder is still the real folder it
   * was resolved to, not a symlink swapped in since (which would take the write elsewhere).
   * Synchronous, so nothing runs between the check and the commit's system call.
   */
  private folderUnchanged(f: Resolved): void {
    const dir = path.dirname(f.abs);
    let real: string;
    try {
      real = realpathSync.native(dir);
    } catch (e) {
      throw fileError(e, f.rel, this.id);
    }
    if (real !== dir) throw new AppError('FORBIDDEN', `the folder of '${f.rel}' changed (a symbolic link was swapped in?) while it was being written: nothing was written; try again`, { path: f.rel, rule: 'folder-changed' });
  }

  /** The file's block in the caller's memory, made or refreshed with `text`. */
  private upsert(actor: Actor, f: Resolved, text: string, permission: MemoryPermission, op: 'load' | 'create'): BlockInfo {
    const blocks = this.memory.blocks;
    if (!blocks.has(actor.owner, f.label)) {
      const view = blocks.create(
        {
          owner: actor.owner,
          label: f.label,
          schema: { kind: 'Text' },
          type: 'Working',
          permission,
          description: `file '${f.rel}' of source '${this.id}' (${this.cfg.folder})`,
          charLimit: Math.min(MAX_BLOCK_CHAR_LIMIT, text.length + DEFAULT_BLOCK_CHAR_LIMIT),
          content: text,
        },
        actor.by,
      );
      this.changed(actor.owner, f.label);
      const { content: _c, text: _t, ...info } = view;
      return info;
    }
    const info = blocks.infoOf(actor.owner, f.label);
    if (text.length > info.charLimit) {
      throw new AppError('PAYLOAD_TOO_LARGE', `'${f.rel}' has ${text.length} characters, over the limit of its block '${f.label}' (${info.charLimit}); raise the block's limit in Inspect → Memory`, { path: f.rel });
    }
    if (blocks.view(actor.owner, f.label).text !== text) {
      blocks.edit(actor.owner, f.label, op, actor.by, { size: text.length, next: () => text, apply: (doc) => writeValue(doc, { kind: 'Text' }, text) });
    }
    const after = info.permission === permission ? blocks.infoOf(actor.owner, f.label) : blocks.setMeta(actor.owner, f.label, { permission });
    this.changed(actor.owner, f.label);
    return after;
  }

  private track(actor: Actor, f: Resolved, disk: { text: string; mtimeMs: number; hash: string }): void {
    this.tracked.set(key(actor.owner, f.rel), { owner: actor.owner, label: f.label, rel: f.rel, mtimeMs: disk.mtimeMs, hash: disk.hash, text: disk.text });
  }
}

const key = (owner: string, rel: string) => `${owner}\u0000${rel}`;

const workspacePath = (f: Resolved): WorkspacePath => ({ root: f.root, abs: f.abs, rel: f.rel });

function fileError(e: unknown, rel: string, sourceId: string): AppError {
  if (e instanceof AppError) return e;
  switch (errnoOf(e)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new AppError('NOT_FOUND', `'${rel}' does not exist in the folder of source '${sourceId}'`, { path: rel });
    case 'EISDIR':
      return new AppError('VALIDATION_FAILED', `'${rel}' is a folder, not a file`, { path: rel });
    case 'EACCES':
    case 'EPERM':
      return new AppError('FORBIDDEN', `no permission to access '${rel}' on disk`, { path: rel });
    case 'ELOOP':
      return new AppError('FORBIDDEN', `'${rel}' became a symbolic link after it was checked: nothing was read or written; try again`, { path: rel });
    case 'ENOSPC':
      return new AppError('UNAVAILABLE', 'the disk is full');
    default:
      return new AppError('INTERNAL', `file error on '${rel}': ${(e as Error).message ?? String(e)}`, { path: rel });
  }
}
