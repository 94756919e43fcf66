/**
 * Named secrets, each bound to the hosts that may receive it, in `<data>/secrets.json`
 * (mode 0600, written atomically). The file holds names, hosts, times and each value
 * encrypted by the SecretCipher, base64 — never a plaintext value:
 *
 *   { "format": "toolsmith-secrets", "version": 1, "cipher": "aes-gcm-keyfile",
 *     "check": "<a known text, encrypted>",
 *     "secrets": [ { "name", "hosts": [], "createdAt", "updatedAt", "value": "<base64>" } ] }
 *
 * Values are decrypted once, at open(), and kept in memory for resolve() and values();
 * nothing here hands a value out except resolve() (for one bound host) and values() (to
 * redact). list() shows no values.
 *
 * What can go wrong when opening, and what happens:
 * - secrets.json is not JSON or not this shape: reported through `problems`, moved aside
 *   (`secrets.json.corrupt-<time>`, never deleted), and the store starts empty.
 * - the key does not open the file (the check text does not decrypt: another key, a lost
 *   or damaged key file, a file written by the other cipher): the store is LOCKED. Nothing
 *   is written or moved; list() still shows names and hosts; resolve() and every change
 *   fail with the reason; open() can be called again once the key is restored.
 * - one value does not decrypt while the check does (that value was altered): the secret
 *   is listed with `unreadable`, resolve() fails for it with a clear error, the others
 *   work, and its stored bytes are kept until it is set again or deleted.
 *
 * Changes are serialised in this process (two quick set() calls both land). Two processes
 * changing secrets at the same moment: the last write wins.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Problem } from '../../../shared/model/app-info';
import { AppError } from '../../../shared/errors';
import { quote, violationError } from '../../../shared/model/validation';
import { moveAside, readJson } from '../lib/json-file';
import { SerialQueue } from '../lib/serial-queue';
import type { SecretResolver } from './types';
import { ioError, toFileText } from '../lib/durable-fs';
import { SecretDecryptError, type SecretCipher } from './cipher';
import { SECRET_HOSTS_MAX, hostMatches, normaliseBinding, normaliseRequestHost } from './hosts';
import { innerSecretValues } from './inner-values';
import { replacePrivateFile } from './private-file';

export const SECRETS_FILE_NAME = 'secrets.json';
export const SECRET_NAME_MAX = 64;
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;
const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/** Encrypted into the file, so a wrong key is told apart from an altered value. */
const CHECK_TEXT = 'toolsmith-secrets-check-v1';

/** A secret as it may be shown: never its value. */
export interface SecretInfo {
  name: string;
  hosts: string[];
  createdAt: string;
  updatedAt: string;
  /** Set when the stored value does not decrypt (it was altered); set it again or delete it. */
  unreadable?: true;
}

export interface SecretStoreOptions {
  dataDir: string;
  cipher: SecretCipher;
  now?: () => Date;
  /** Told about a corrupt secrets.json (moved aside), an unreadable value, or a locked store. */
  problems?: (p: Omit<Problem, 'id' | 'at'>) => void;
  /** Called after every change, with the new list (no values). */
  onChange?: (list: SecretInfo[]) => void;
}

const EntrySchema = z.object({
  name: z.string().max(SECRET_NAME_MAX).regex(SECRET_NAME),
  hosts: z.array(z.string()).min(1).max(SECRET_HOSTS_MAX),
  createdAt: z.string(),
  updatedAt: z.string(),
  value: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
});

const FileSchema = z.object({
  format: z.literal('toolsmith-secrets'),
  version: z.literal(1),
  cipher: z.enum(['aes-gcm-keyfile', 'electron-safe-storage']),
  check: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/).optional(),
  secrets: z.array(EntrySchema),
});

interface Entry {
  name: string;
  hosts: string[];
  createdAt: string;
  updatedAt: string;
  /** The encrypted value, base64, as stored. */
  stored: string;
  /** The decrypted value; undefined when it did not decrypt. */
  plain: string | undefined;
}

export class SecretStore implements SecretResolver {
  readonly file: string;
  private readonly cipher: SecretCipher;
  private readonly now: () => Date;
  private readonly problems: NonNullable<SecretStoreOptions['problems']>;
  private readonly onChange: SecretStoreOptions['onChange'];
  private entries = new Map<string, Entry>();
  private opened = false;
  private locked: AppError | undefined;
  private readonly queue = new SerialQueue();
  private valueCache: string[] | undefined;

  constructor(options: SecretStoreOptions) {
    this.file = path.join(options.dataDir, SECRETS_FILE_NAME);
    this.cipher = options.cipher;
    this.now = options.now ?? (() => new Date());
    this.problems = options.problems ?? (() => undefined);
    this.onChange = options.onChange;
  }

  /** Reads and decrypts secrets.json. Throws only when the file cannot be read at all (I/O). */
  open(): Promise<void> {
    return this.serial(() => this.load());
  }

  /** Why the store is locked (the key does not open secrets.json), or undefined. */
  lockedReason(): AppError | undefined {
    return this.locked;
  }

  /** Every secret, sorted by name, without values. */
  list(): SecretInfo[] {
    return [...this.entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(info);
  }

  /** Creates or replaces a secret. */
  async set(name: string, value: string, hosts: readonly string[]): Promise<SecretInfo> {
    const n = checkName(name);
    checkValue(value);
    const h = checkHosts(hosts);
    return this.change(async (entries) => {
      const stored = Buffer.from(await this.cipher.encrypt(value)).toString('base64');
      const at = this.now().toISOString();
      const entry: Entry = { name: n, hosts: h, createdAt: entries.get(n)?.createdAt ?? at, updatedAt: at, stored, plain: value };
      entries.set(n, entry);
      return info(entry);
    });
  }

  /** Changes the hosts a secret is bound to; its value is kept. */
  async setHosts(name: string, hosts: readonly string[]): Promise<SecretInfo> {
    const h = checkHosts(hosts);
    return this.change(async (entries) => {
      const old = entries.get(name);
      if (!old) throw notFound(name);
      const entry: Entry = { ...old, hosts: h, updatedAt: this.now().toISOString() };
      entries.set(name, entry);
      return info(entry);
    });
  }

  delete(name: string): Promise<void> {
    return this.change(async (entries) => {
      if (!entries.delete(name)) throw notFound(name);
    });
  }

  /** The value for a request to `host` (no port). FORBIDDEN if not bound to it, NOT_FOUND if unknown. */
  resolve(name: string, host: string): string {
    this.usable();
    const entry = this.entries.get(name);
    if (!entry) throw notFound(name);
    const h = normaliseRequestHost(host);
    if (!entry.hosts.some((b) => hostMatches(b, h))) {
      throw new AppError('FORBIDDEN', `secret ${quote(name)} is not bound to host ${quote(h)}`, { secret: name, host: h, hosts: entry.hosts });
    }
    if (entry.plain === undefined) throw unreadable(name);
    return entry.plain;
  }

  /**
   * Every readable value, for redaction, and the credentials a JSON value holds (an OAuth
   * token response's access and refresh tokens: see inner-values.ts). The same array until
   * something changes.
   */
  values(): string[] {
    if (!this.valueCache) {
      this.valueCache = Object.freeze(
        [...this.entries.values()].flatMap((e) => (e.plain === undefined ? [] : [e.plain, ...innerSecretValues(e.plain)])),
      ) as string[];
    }
    return this.valueCache;
  }

  // ---- internals -------------------------------------------------------------------------

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  private usable(): void {
    if (!this.opened) throw new AppError('UNAVAILABLE', 'the secret store is not open yet');
    if (this.locked) throw this.locked;
  }

  /** Applies `fn` to a copy of the entries, writes the file, then adopts the copy. */
  private change<T>(fn: (entries: Map<string, Entry>) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      this.usable();
      const next = new Map(this.entries);
      const result = await fn(next);
      await this.write(next);
      this.entries = next;
      this.valueCache = undefined;
      try {
        this.onChange?.(this.list());
      } catch {
        // A listener's failure is not the change's: the change is written and kept.
      }
      return result;
    });
  }

  private async write(entries: Map<string, Entry>): Promise<void> {
    const check = Buffer.from(await this.cipher.encrypt(CHECK_TEXT)).toString('base64');
    const doc: z.infer<typeof FileSchema> = {
      format: 'toolsmith-secrets',
      version: 1,
      cipher: this.cipher.kind,
      check,
      secrets: [...entries.values()]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((e) => ({ name: e.name, hosts: e.hosts, createdAt: e.createdAt, updatedAt: e.updatedAt, value: e.stored })),
    };
    try {
      await replacePrivateFile(this.file, toFileText(doc));
    } catch (e) {
      throw ioError('write', this.file, e);
    }
  }

  private async load(): Promise<void> {
    this.cipher.reload?.();
    this.opened = false;
    this.locked = undefined;
    this.entries = new Map();
    this.valueCache = undefined;
    let r;
    try {
      r = await readJson(this.file);
    } catch (e) {
      throw ioError('read', this.file, e);
    }
    if (r.kind === 'missing') {
      this.opened = true;
      return;
    }
    if (r.kind === 'corrupt') return this.setAside(r.message);
    const parsed = FileSchema.safeParse(r.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return this.setAside(`it does not have the shape of a secrets file (${issue?.path.join('.') || 'top level'}: ${issue?.message ?? ''})`);
    }
    const doc = parsed.data;
    const entries = new Map<string, Entry>();
    for (const s of doc.secrets) {
      if (entries.has(s.name)) return this.setAside(`the secret ${quote(s.name)} appears twice`);
      const hosts: string[] = [];
      for (const h of s.hosts) {
        const b = normaliseBinding(h);
        if (!b.ok) return this.setAside(`the secret ${quote(s.name)} has a bad host: ${b.violation.message}`);
        if (!hosts.includes(b.host)) hosts.push(b.host);
      }
      entries.set(s.name, { name: s.name, hosts, createdAt: s.createdAt, updatedAt: s.updatedAt, stored: s.value, plain: undefined });
    }
    // From here on the file is well formed: it is never moved aside, whatever the key says.
    this.entries = entries;
    this.opened = true;
    if (entries.size === 0) return;

    if (doc.cipher !== this.cipher.kind) {
      return this.lock(
        `secrets.json was encrypted by ${cipherName(doc.cipher)}, but this app uses ${cipherName(this.cipher.kind)}, which cannot decrypt it`,
      );
    }
    if (doc.check !== undefined) {
      const checked = await this.tryDecrypt(doc.check);
      if (checked.kind === 'failed') return this.lock(keyMismatch(checked.error));
      if (checked.kind === 'altered' || checked.plain !== CHECK_TEXT) return this.lock(keyMismatch());
    }
    const bad: string[] = [];
    for (const e of entries.values()) {
      const got = await this.tryDecrypt(e.stored);
      if (got.kind === 'failed') return this.lock(keyMismatch(got.error));
      if (got.kind === 'ok') e.plain = got.plain;
      else bad.push(e.name);
    }
    if (doc.check === undefined && bad.length === entries.size) return this.lock(keyMismatch());
    for (const name of bad) {
      this.problems({
        kind: 'corrupt-file',
        path: this.file,
        message: `the stored value of secret ${quote(name)} does not decrypt: it was altered or damaged. Set the secret again or delete it; its stored bytes are kept until then`,
      });
    }
  }

  /** ok, 'altered' (the data does not authenticate), or failed (the key itself is unusable). */
  private async tryDecrypt(b64: string): Promise<{ kind: 'ok'; plain: string } | { kind: 'altered' } | { kind: 'failed'; error: AppError }> {
    try {
      return { kind: 'ok', plain: await this.cipher.decrypt(Buffer.from(b64, 'base64')) };
    } catch (e) {
      if (e instanceof SecretDecryptError) return { kind: 'altered' };
      return { kind: 'failed', error: e instanceof AppError ? e : new AppError('UNAVAILABLE', e instanceof Error ? e.message : String(e)) };
    }
  }

  private lock(message: string): void {
    for (const e of this.entries.values()) e.plain = undefined;
    this.valueCache = undefined;
    this.locked = new AppError('UNAVAILABLE', `the secrets cannot be used: ${message}. Nothing was changed.`, { path: this.file, reason: 'locked' });
    this.problems({ kind: 'io-error', path: this.file, message: this.locked.message });
  }

  private async setAside(reason: string): Promise<void> {
    let movedTo: string;
    try {
      movedTo = await moveAside(this.file, this.now());
    } catch (e) {
      throw ioError('move aside the damaged', this.file, e);
    }
    this.entries = new Map();
    this.opened = true;
    this.problems({
      kind: 'corrupt-file',
      path: this.file,
      message: `secrets.json is damaged: ${reason}. It was kept as ${path.basename(movedTo)}; the secret store starts empty`,
      movedTo,
    });
  }
}

function info(e: Entry): SecretInfo {
  const out: SecretInfo = { name: e.name, hosts: [...e.hosts], createdAt: e.createdAt, updatedAt: e.updatedAt };
  if (e.plain === undefined) out.unreadable = true;
  return out;
}

function notFound(name: string): AppError {
  return new AppError('NOT_FOUND', `no secret named ${quote(name)}`, { secret: name });
}

function unreadable(name: string): AppError {
  return new AppError('UNAVAILABLE', `the stored value of secret ${quote(name)} does not decrypt (it was altered or damaged); set it again`, {
    secret: name,
    reason: 'unreadable',
  });
}

function cipherName(kind: string): string {
  return kind === 'electron-safe-storage' ? 'the desktop app (system keychain)' : kind === 'aes-gcm-keyfile' ? 'the key file secret.key' : kind;
}

function keyMismatch(cause?: AppError): string {
  if (cause) return cause.message;
  return 'the key does not open secrets.json (it was encrypted with a different key); restore the matching key';
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw violationError({ field: 'name', rule: 'required', message: 'a secret needs a name' });
  if (name.length > SECRET_NAME_MAX) {
    throw violationError({ field: 'name', rule: 'max-length', message: `a secret name may be at most ${SECRET_NAME_MAX} characters: got ${name.length}` });
  }
  if (!SECRET_NAME.test(name)) {
    throw violationError({
      field: 'name',
      rule: 'pattern',
      message: `${quote(name)} is not a secret name: use letters, digits, _ . - and start with a letter`,
    });
  }
  return name;
}

function checkValue(value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) throw violationError({ field: 'value', rule: 'required', message: 'a secret needs a value' });
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > SECRET_VALUE_MAX_BYTES) {
    throw violationError({ field: 'value', rule: 'max-length', message: `a secret value may be at most 64 KiB: got ${bytes} bytes` });
  }
}

function checkHosts(hosts: unknown): string[] {
  if (!Array.isArray(hosts) || hosts.length === 0) {
    throw violationError({ field: 'hosts', rule: 'required', message: 'a secret must be bound to at least one host, such as api.example.com' });
  }
  if (hosts.length > SECRET_HOSTS_MAX) {
    throw violationError({ field: 'hosts', rule: 'max-items', message: `a secret may be bound to at most ${SECRET_HOSTS_MAX} hosts: got ${hosts.length}` });
  }
  const out: string[] = [];
  for (const h of hosts) {
    const b = normaliseBinding(h);
    if (!b.ok) throw violationError(b.violation);
    if (!out.includes(b.host)) out.push(b.host);
  }
  return out;
}
