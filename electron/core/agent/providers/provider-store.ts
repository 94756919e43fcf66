/**
 * Model providers in `<data>/providers.json` (atomic writes); keys in the secret store as
 * `provider-<id>`, bound to the host of the base URL (lowercase, no port). The file holds no
 * key, and no key ever comes back out: the view says `hasKey`.
 *
 *   { "format": "toolsmith-providers", "version": 1,
 *     "providers": [ { "id", "name", "kind", "baseUrl", "models": [], "createdAt", "updatedAt" } ] }
 *
 * - A providers.json that is not JSON or not this shape is reported, moved aside
 *   (`providers.json.corrupt-<time>`, never deleted) and the list starts empty.
 * - Changing the base URL to another host without giving a key removes the stored key: a
 *   key never follows a provider to a host it was not given for.
 * - Changes are serialised in this process; each is written before it is acknowledged.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Problem } from '../../../../shared/model/app-info';
import { AppError } from '../../../../shared/errors';
import { ProviderKindSchema, type Provider, type ProviderInput } from '../../../../shared/model/provider';
import { violationError } from '../../../../shared/model/validation';
import { moveAside, readJson } from '../../lib/json-file';
import { SerialQueue } from '../../lib/serial-queue';
import { v7 as uuidv7 } from 'uuid';
import type { SecretStore } from '../../secrets/secret-store';
import { attempt, nodeFs, replaceFile, toFileText } from '../../lib/durable-fs';

export const PROVIDERS_FILE_NAME = 'providers.json';
const MODELS_MAX = 5000;

export interface ProviderStoreOptions {
  dataDir: string;
  secrets: SecretStore;
  now: () => Date;
  onChange?: (ids: string[]) => void;
  /** Told about a damaged providers.json (moved aside). */
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
}

const StoredSchema = z
  .object({
    id: z.string().min(1).max(100),
    name: z.string().min(1).max(100),
    kind: ProviderKindSchema,
    baseUrl: z.string().url().max(2048),
    models: z.array(z.string().max(300)).max(MODELS_MAX),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
type Stored = z.infer<typeof StoredSchema>;

const FileSchema = z.object({
  format: z.literal('toolsmith-providers'),
  version: z.literal(1),
  providers: z.array(StoredSchema),
});

/** The secret-store name of a provider's key. */
export function keyName(id: string): string {
  return `provider-${id}`;
}

/** The host a provider's key is bound to: the base URL's host, lowercase, no port. */
export function keyHost(baseUrl: string): string {
  return new URL(baseUrl).hostname.toLowerCase().replace(/\.$/, '');
}

/** A base URL a provider may have: http(s), no user or password in it. Answers it without a trailing slash. */
export function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw violationError({ field: 'baseUrl', rule: 'url', message: 'a URL such as http://127.0.0.1:11434/v1' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw violationError({ field: 'baseUrl', rule: 'protocol', message: `the base URL must start with http:// or https://, not ${url.protocol}//` });
  }
  if (url.username || url.password) {
    throw violationError({ field: 'baseUrl', rule: 'credentials', message: 'put the key in the key field, not in the URL' });
  }
  // Request paths are appended to the base URL: a query or fragment would end up in the middle.
  if (url.hash || raw.includes('#')) throw violationError({ field: 'baseUrl', rule: 'hash', message: 'the base URL cannot have a #fragment: remove it' });
  if (url.search || raw.includes('?')) {
    throw violationError({ field: 'baseUrl', rule: 'query', message: 'the base URL cannot have a ?query: give the address up to its path, such as https://host/v1' });
  }
  return url.toString().replace(/\/+$/, '');
}

export class ProviderStore {
  private items = new Map<string, Stored>();
  private readonly queue = new SerialQueue();
  readonly file: string;

  private constructor(private readonly opts: ProviderStoreOptions) {
    this.file = path.join(opts.dataDir, PROVIDERS_FILE_NAME);
  }

  static async open(opts: ProviderStoreOptions): Promise<ProviderStore> {
    const store = new ProviderStore(opts);
    await store.load();
    return store;
  }

  /** Every provider, by name, with `hasKey` and never a key. */
  list(): Provider[] {
    return [...this.items.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1)).map((s) => this.view(s));
  }

  get(id: string): Provider | undefined {
    const s = this.items.get(id);
    return s ? this.view(s) : undefined;
  }

  /** NOT_FOUND when there is no such provider. */
  require(id: string): Provider {
    const p = this.get(id);
    if (!p) throw notFound(id);
    return p;
  }

  /**
   * Adds (no id) or changes a provider. The key: a string sets it, null removes it, absent
   * or '' keeps it, unless the base URL moves to another host, which removes it.
   */
  save(id: string | undefined, input: ProviderInput): Promise<Provider> {
    return this.serial(async () => {
      const baseUrl = checkBaseUrl(input.baseUrl);
      const at = this.opts.now().toISOString();
      const old = id === undefined ? undefined : this.items.get(id);
      if (id !== undefined && !old) throw notFound(id);
      const next: Stored = {
        id: old?.id ?? uuidv7({ msecs: this.opts.now().getTime() }),
        name: input.name.trim(),
        kind: input.kind,
        baseUrl,
        // Another server or kind lists other models.
        models: old && old.baseUrl === baseUrl && old.kind === input.kind ? old.models : [],
        createdAt: old?.createdAt ?? at,
        updatedAt: at,
      };
      const secrets = this.opts.secrets;
      const name = keyName(next.id);
      const had = this.hasKey(next.id);
      const hostChanged = old !== undefined && keyHost(old.baseUrl) !== keyHost(baseUrl);
      // An empty key field is "no new key", like an absent one.
      const trimmed = typeof input.apiKey === 'string' ? input.apiKey.trim() : input.apiKey;
      const apiKey = trimmed === '' ? undefined : trimmed;

      // A new key needs a usable secret store: find out before anything is written.
      if (typeof apiKey === 'string') {
        const locked = secrets.lockedReason();
        if (locked) throw locked;
      }
      // The file first, then the key: the secret store cannot give the old key back, so a
      // failure must leave it untouched. A key that cannot be stored undoes the file.
      const items = new Map(this.items).set(next.id, next);
      await this.write(items);
      if (typeof apiKey === 'string') {
        try {
          await secrets.set(name, apiKey, [keyHost(baseUrl)]);
        } catch (e) {
          try {
            await this.write(this.items);
          } catch {
            // The file keeps the change; the old key stays bound to the old host only.
            this.items = items;
            this.changed([next.id]);
          }
          throw e;
        }
      }
      this.items = items;
      if (had && (apiKey === null || (apiKey === undefined && hostChanged))) await secrets.delete(name).catch(() => undefined);
      this.changed([next.id]);
      return this.view(next);
    });
  }

  /** Removes a provider and its key. NOT_FOUND when there is none. */
  delete(id: string): Promise<void> {
    return this.serial(async () => {
      if (!this.items.has(id)) throw notFound(id);
      const items = new Map(this.items);
      items.delete(id);
      await this.write(items);
      this.items = items;
      if (this.hasKey(id)) await this.opts.secrets.delete(keyName(id)).catch(() => undefined);
      this.changed([id]);
    });
  }

  /** Keeps the models a provider listed (after a connection test). */
  setModels(id: string, models: string[]): Promise<Provider> {
    return this.serial(async () => {
      const old = this.items.get(id);
      if (!old) throw notFound(id);
      const list = [...new Set(models.filter((m) => typeof m === 'string' && m.length > 0 && m.length <= 300))].slice(0, MODELS_MAX);
      const next: Stored = { ...old, models: list };
      const items = new Map(this.items).set(id, next);
      await this.write(items);
      this.items = items;
      this.changed([id]);
      return this.view(next);
    });
  }

  // ---- internals -------------------------------------------------------------------------

  private hasKey(id: string): boolean {
    const name = keyName(id);
    return this.opts.secrets.list().some((s) => s.name === name);
  }

  private view(s: Stored): Provider {
    return { ...s, models: [...s.models], hasKey: this.hasKey(s.id) };
  }

  private changed(ids: string[]): void {
    try {
      this.opts.onChange?.(ids);
    } catch {
      // A listener's failure is not the change's: the change is written and kept.
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  private async write(items: Map<string, Stored>): Promise<void> {
    const doc: z.infer<typeof FileSchema> = { format: 'toolsmith-providers', version: 1, providers: [...items.values()].sort((a, b) => (a.id < b.id ? -1 : 1)) };
    await attempt('write', this.file, () => replaceFile(nodeFs, this.file, toFileText(doc), () => undefined));
  }

  private async load(): Promise<void> {
    const r = await attempt('read', this.file, () => readJson(this.file));
    if (r.kind === 'missing') return;
    if (r.kind === 'corrupt') return this.setAside(r.message);
    const parsed = FileSchema.safeParse(r.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.setAside(`it does not have the shape of a providers file (${issue?.path.join('.') || 'top level'}: ${issue?.message ?? ''})`);
    }
    const items = new Map<string, Stored>();
    for (const p of parsed.data.providers) {
      if (items.has(p.id)) return this.setAside(`the provider ${p.id} appears twice`);
      items.set(p.id, p);
    }
    this.items = items;
  }

  private async setAside(reason: string): Promise<void> {
    const movedTo = await attempt('move aside the damaged', this.file, () => moveAside(this.file, this.opts.now()));
    this.items = new Map();
    this.opts.problems?.({
      kind: 'corrupt-file',
      path: this.file,
      message: `providers.json is damaged: ${reason}. It was kept as ${path.basename(movedTo)}; the provider list starts empty`,
      movedTo,
    });
  }
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `no model provider ${id}: it may have been deleted`, { id });
}
