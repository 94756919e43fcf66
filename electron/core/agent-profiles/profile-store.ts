/**
 * The agent profiles: built-ins shipped with the app (read-only, may be disabled) and the
 * user's, one JSON file each under `<data>/agents/`. Files are the truth; this keeps a copy
 * in memory, re-read on `reload()`.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { AgentProfileSchema, type AgentProfile, type AgentProfileView } from '../../../shared/model/agent-profile';
import type { Problem } from '../../../shared/model/app-info';
import { writeFileAtomic } from '../lib/atomic-write';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';

export interface AgentProfileStoreOptions {
  dataDir: string;
  /** Built-ins are read from `<resourcesDir>/agents/*.json`. */
  resourcesDir: string;
  report?: (p: Omit<Problem, 'id' | 'at'>) => void;
  onChange?: () => void;
  now?: () => Date;
}

interface Entry {
  profile: AgentProfile;
  builtIn: boolean;
}

const OVERRIDES = 'agents.json';

export const builtInReadOnly = (name: string) =>
  `'${name}' is a built-in agent profile: it cannot be changed or deleted (it can be disabled); save a copy under another name to change it`;
export const agentNotFound = (name: string) => `no agent profile named '${name}'`;
export const nameMismatch = (file: string, name: string) => `the file is named '${file}' but the profile inside is named '${name}'`;

/** zod issues as one line a person can act on: `field: message; field: message`. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message)).join('; ');
}

export class AgentProfileStore {
  private entries = new Map<string, Entry>();
  private disabled = new Set<string>();
  private readonly writes = new SerialQueue();

  private constructor(private readonly opts: AgentProfileStoreOptions) {}

  /** Loads built-ins (an invalid one throws: it is the app's own file) and the user's profiles. */
  static async open(opts: AgentProfileStoreOptions): Promise<AgentProfileStore> {
    const s = new AgentProfileStore(opts);
    await s.reload();
    return s;
  }

  private get dir(): string {
    return path.join(this.opts.dataDir, 'agents');
  }

  private get overridesFile(): string {
    return path.join(this.opts.dataDir, 'overrides', OVERRIDES);
  }

  async reload(): Promise<void> {
    const next = new Map<string, Entry>();
    for (const p of await loadBuiltIns(path.join(this.opts.resourcesDir, 'agents'))) next.set(p.name, { profile: p, builtIn: true });
    for (const p of await this.loadUserProfiles()) {
      if (next.get(p.name)?.builtIn) {
        this.opts.report?.({ kind: 'invalid-config', path: path.join(this.dir, `${p.name}.json`), message: `${builtInReadOnly(p.name)}; the file is ignored` });
        continue;
      }
      next.set(p.name, { profile: p, builtIn: false });
    }
    this.entries = next;
    this.disabled = await this.loadDisabled();
  }

  list(): AgentProfileView[] {
    return [...this.entries.values()].sort((a, b) => a.profile.name.localeCompare(b.profile.name)).map((e) => this.view(e));
  }

  get(name: string): AgentProfileView {
    const e = this.entries.get(name);
    if (!e) throw new AppError('NOT_FOUND', agentNotFound(name), { name });
    return this.view(e);
  }

  /** The enabled profile of that name, or undefined. */
  enabled(name: string): AgentProfile | undefined {
    const e = this.entries.get(name);
    return e && !this.disabled.has(name) ? e.profile : undefined;
  }

  /** Creates or replaces a user profile. Built-in names are refused. */
  async put(input: unknown): Promise<AgentProfileView> {
    const parsed = AgentProfileSchema.safeParse(input);
    if (!parsed.success) throw new AppError('VALIDATION_FAILED', describeIssues(parsed.error.issues), { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
    const p = parsed.data;
    if (this.entries.get(p.name)?.builtIn) throw new AppError('CONFLICT', builtInReadOnly(p.name), { name: p.name });
    await this.writes.run(async () => {
      await fsp.mkdir(this.dir, { recursive: true });
      await writeFileAtomic(path.join(this.dir, `${p.name}.json`), JSON.stringify(p, null, 2) + '\n');
    });
    this.entries.set(p.name, { profile: p, builtIn: false });
    this.opts.onChange?.();
    return this.get(p.name);
  }

  async delete(name: string): Promise<void> {
    const e = this.entries.get(name);
    if (!e) throw new AppError('NOT_FOUND', agentNotFound(name), { name });
    if (e.builtIn) throw new AppError('CONFLICT', builtInReadOnly(name), { name });
    await this.writes.run(async () => {
      await fsp.rm(path.join(this.dir, `${name}.json`), { force: true });
    });
    this.entries.delete(name);
    if (this.disabled.delete(name)) await this.saveDisabled();
    this.opts.onChange?.();
  }

  async setEnabled(name: string, enabled: boolean): Promise<AgentProfileView> {
    if (!this.entries.has(name)) throw new AppError('NOT_FOUND', agentNotFound(name), { name });
    if (enabled) this.disabled.delete(name);
    else this.disabled.add(name);
    await this.saveDisabled();
    this.opts.onChange?.();
    return this.get(name);
  }

  private view(e: Entry): AgentProfileView {
    const warnings: string[] = [];
    for (const d of e.profile.delegatesTo) {
      if (!this.entries.has(d)) warnings.push(`delegates to '${d}', which does not exist`);
      else if (this.disabled.has(d)) warnings.push(`delegates to '${d}', which is disabled`);
    }
    return { profile: e.profile, builtIn: e.builtIn, enabled: !this.disabled.has(e.profile.name), warnings };
  }

  private async loadUserProfiles(): Promise<AgentProfile[]> {
    let names: string[];
    try {
      names = (await fsp.readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: AgentProfile[] = [];
    for (const n of names) {
      const file = path.join(this.dir, n);
      const r = await readJson(file).catch((e: Error) => ({ kind: 'corrupt' as const, message: e.message }));
      if (r.kind === 'missing') continue;
      let why: string | undefined;
      if (r.kind === 'corrupt') why = r.message;
      else {
        const parsed = AgentProfileSchema.safeParse(r.value);
        if (!parsed.success) why = `not a valid agent profile: ${describeIssues(parsed.error.issues)}`;
        else if (`${parsed.data.name}.json` !== n) why = nameMismatch(n, parsed.data.name);
        else out.push(parsed.data);
      }
      if (why !== undefined) await this.setAside(file, why);
    }
    return out;
  }

  private async setAside(file: string, message: string): Promise<void> {
    let movedTo: string | undefined;
    try {
      movedTo = await moveAside(file, (this.opts.now ?? (() => new Date()))());
    } catch {
      movedTo = undefined;
    }
    this.opts.report?.({ kind: 'corrupt-file', path: file, message, ...(movedTo ? { movedTo } : {}) });
  }

  private async loadDisabled(): Promise<Set<string>> {
    const r = await readJson(this.overridesFile).catch(() => ({ kind: 'missing' as const }));
    if (r.kind !== 'ok') return new Set();
    const d = (r.value as { disabled?: unknown }).disabled;
    return new Set(Array.isArray(d) ? d.filter((x): x is string => typeof x === 'string') : []);
  }

  private async saveDisabled(): Promise<void> {
    const disabled = [...this.disabled].sort();
    await this.writes.run(async () => {
      await fsp.mkdir(path.dirname(this.overridesFile), { recursive: true });
      await writeFileAtomic(this.overridesFile, JSON.stringify({ disabled }, null, 2) + '\n');
    });
  }
}

/** The shipped profiles; any invalid one throws (they are the app's own files). */
export async function loadBuiltIns(dir: string): Promise<AgentProfile[]> {
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: AgentProfile[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    const parsed = AgentProfileSchema.safeParse(JSON.parse(await fsp.readFile(file, 'utf8')));
    if (!parsed.success) throw new Error(`built-in agent profile ${file} is invalid: ${describeIssues(parsed.error.issues)}`);
    if (`${parsed.data.name}.json` !== n) throw new Error(`built-in agent profile ${file}: ${nameMismatch(n, parsed.data.name)}`);
    out.push(parsed.data);
  }
  return out;
}
