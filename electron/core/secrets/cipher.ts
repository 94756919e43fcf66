/**
 * Encryption of secret values at rest.
 *
 * - Desktop: the shell builds a SecretCipher on Electron's safeStorage (the OS keychain)
 *   and passes it in; this folder never imports Electron. describeSafeStorageBackend is the
 *   pure rule the shell applies before using it (Linux's plaintext `basic_text` backend is
 *   refused unless the user accepted it).
 * - Headless: KeyFileCipher, AES-256-GCM with a random 32-byte key in `<data>/secret.key`.
 *   The key file is created with mode 0600 by an exclusive create (a complete temp file,
 *   then link(2), so another process never sees it half-written and two processes cannot
 *   both create one). Anyone who can read both secret.key and secrets.json can decrypt.
 *
 * Decisions:
 * - A key file readable or writable by group or others is REFUSED, not tightened (as
 *   OpenSSH does with private keys): it may already have been read, and quietly fixing the
 *   mode would hide that. The error says how to fix it (`chmod 600`). Not checked on
 *   Windows, where POSIX modes mean nothing; there the user profile's ACL protects it.
 * - A missing key file is created only when something is ENCRYPTED. Decrypting with no key
 *   file fails with a clear error, so a lost key is never silently replaced by a new one
 *   that would orphan the stored secrets. A corrupt key file is an error; it is never
 *   replaced.
 * - The key file carries a checksum, so a damaged key is told apart from a wrong key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import { AlreadyExists } from '../lib/atomic-write';
import { SerialQueue } from '../lib/serial-queue';
import { errnoOf, ioError } from '../lib/durable-fs';
import { createPrivateFile } from './private-file';

export type SecretCipherKind = 'aes-gcm-keyfile' | 'electron-safe-storage';

/** Encrypts one secret value at a time; each call may be sync or async. */
export interface SecretCipher {
  kind: SecretCipherKind;
  encrypt(plain: string): Buffer | Promise<Buffer>;
  /** Throws when the data was altered or was encrypted with another key. */
  decrypt(data: Buffer): string | Promise<string>;
  /** Optional: forget a cached key so the next use reads it again. SecretStore.open() calls it. */
  reload?(): void;
}

/**
 * Data that does not authenticate under the current key: altered, truncated, or
 * encrypted with a different key. (Distinct from a key file that cannot be read.)
 */
export class SecretDecryptError extends AppError {
  constructor(message: string) {
    super('UNAVAILABLE', message, { reason: 'decrypt-failed' });
    this.name = 'SecretDecryptError';
  }
}

export const KEY_FILE_NAME = 'secret.key';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The first byte of every ciphertext: the layout below, so it can change later. */
const FORMAT_V1 = 1;
const KEY_FILE_HEADER = 'toolsmith-secret-key v1';

/** `toolsmith-secret-key v1 <base64 key> <first 8 hex of sha256(key)>` */
export function formatKeyFile(key: Buffer): string {
  return `${KEY_FILE_HEADER} ${key.toString('base64')} ${keyChecksum(key)}\n`;
}

function keyChecksum(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** The key in a key file's text, or why the text is not a key. */
export function parseKeyFile(text: string): { ok: true; key: Buffer } | { ok: false; reason: string } {
  const parts = text.trim().split(' ');
  if (parts.length !== 4 || `${parts[0]} ${parts[1]}` !== KEY_FILE_HEADER) {
    return { ok: false, reason: `it does not start with '${KEY_FILE_HEADER}'` };
  }
  const [, , b64, sum] = parts as [string, string, string, string];
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return { ok: false, reason: 'the key is not base64' };
  const key = Buffer.from(b64, 'base64');
  if (key.length !== KEY_BYTES) return { ok: false, reason: `the key has ${key.length} bytes instead of ${KEY_BYTES}` };
  if (keyChecksum(key) !== sum) return { ok: false, reason: 'the checksum does not match the key (the file is damaged)' };
  return { ok: true, key };
}

export interface KeyFileCipherOptions {
  /** Defaults to process.platform; on 'win32' the mode check is skipped. */
  platform?: NodeJS.Platform;
}

/** AES-256-GCM with the key in `<dataDir>/secret.key`; see the file comment for the rules. */
export class KeyFileCipher implements SecretCipher {
  readonly kind = 'aes-gcm-keyfile' as const;
  readonly keyFile: string;
  private readonly platform: NodeJS.Platform;
  /** Only a successful load is kept, so a fixed file (chmod, restored backup) is picked up. */
  private loaded: Buffer | undefined;
  private readonly loads = new SerialQueue();

  constructor(
    readonly dataDir: string,
    options: KeyFileCipherOptions = {},
  ) {
    this.keyFile = path.join(dataDir, KEY_FILE_NAME);
    this.platform = options.platform ?? process.platform;
  }

  async encrypt(plain: string): Promise<Buffer> {
    const key = await this.key(true);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_V1]), iv, cipher.getAuthTag(), body]);
  }

  async decrypt(data: Buffer): Promise<string> {
    if (data.length < 1 + IV_BYTES + TAG_BYTES || data[0] !== FORMAT_V1) {
      throw new SecretDecryptError('the encrypted value is truncated or not in a known format');
    }
    const key = await this.key(false);
    const iv = data.subarray(1, 1 + IV_BYTES);
    const tag = data.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const body = data.subarray(1 + IV_BYTES + TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptError(
        `the encrypted value does not authenticate with the key in ${this.keyFile}: it was altered, or it was encrypted with a different key`,
      );
    }
  }

  /** The next use reads the key file again (after the user restored it, say). */
  reload(): void {
    this.loaded = undefined;
  }

  /** Loads the key; creates one only when `create` (that is, when encrypting). */
  private key(create: boolean): Promise<Buffer> {
    if (this.loaded) return Promise.resolve(this.loaded);
    // Loads run one at a time, so a create and a read in this process cannot race.
    return this.loads.run(async () => {
      if (this.loaded) return this.loaded;
      const key = (await this.readKey()) ?? (create ? await this.createKey() : undefined);
      if (!key) {
        throw new AppError(
          'UNAVAILABLE',
          `the secret key file ${this.keyFile} is missing, so the stored secrets cannot be decrypted; restore it from a backup (a new key would not open them)`,
          { path: this.keyFile, reason: 'key-missing' },
        );
      }
      this.loaded = key;
      return key;
    });
  }

  /** The key, or undefined when there is no key file. Throws on a loose mode or a damaged file. */
  private async readKey(): Promise<Buffer | undefined> {
    let stat;
    try {
      stat = await fsp.stat(this.keyFile);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw ioError('read the secret key file', this.keyFile, e);
    }
    if (!stat.isFile()) {
      throw new AppError('UNAVAILABLE', `the secret key file ${this.keyFile} is not a regular file`, { path: this.keyFile, reason: 'key-not-a-file' });
    }
    if (this.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
      throw new AppError(
        'UNAVAILABLE',
        `the secret key file ${this.keyFile} has mode ${mode}: other users may be able to read it, so it is refused. ` +
          `If you trust that nobody else read it, run: chmod 600 '${this.keyFile}'`,
        { path: this.keyFile, reason: 'key-mode', mode },
      );
    }
    let text: string;
    try {
      text = await fsp.readFile(this.keyFile, 'utf8');
    } catch (e) {
      throw ioError('read the secret key file', this.keyFile, e);
    }
    const parsed = parseKeyFile(text);
    if (!parsed.ok) {
      throw new AppError(
        'UNAVAILABLE',
        `the secret key file ${this.keyFile} is corrupt: ${parsed.reason}. It was left as it is; restore it from a backup (a new key would not open the stored secrets)`,
        { path: this.keyFile, reason: 'key-corrupt' },
      );
    }
    return parsed.key;
  }

  /** Writes a new key with mode 0600: temp file, fsync, then link(2), which fails if a key appeared meanwhile. */
  private async createKey(): Promise<Buffer> {
    const key = randomBytes(KEY_BYTES);
    const text = formatKeyFile(key);
    await fsp.mkdir(this.dataDir, { recursive: true, mode: 0o700 }).catch((e) => {
      throw ioError('create the data folder', this.dataDir, e);
    });
    try {
      await createPrivateFile(this.keyFile, text);
    } catch (e) {
      if (!(e instanceof AlreadyExists)) throw ioError('create the secret key file', this.keyFile, e);
      // Another process created a key first: use theirs.
      const theirs = await this.readKey();
      if (theirs) return theirs;
      throw new AppError('UNAVAILABLE', `the secret key file ${this.keyFile} appeared and vanished while it was being created; try again`, {
        path: this.keyFile,
      });
    }
    return key;
  }
}

/** Linux's plaintext safeStorage backend: "encrypted" with a fixed, public password. */
const PLAINTEXT_BACKEND = 'basic_text';

/**
 * Whether the shell may use Electron's safeStorage with `backend`
 * (safeStorage.getSelectedStorageBackend() on Linux). `basic_text` protects nothing and is
 * refused unless the user accepted it; `unknown` (asked before the app is ready, or no
 * backend could be chosen) is refused. Other backends (gnome_libsecret, kwallet*, and the
 * shell's own names for macOS Keychain and Windows DPAPI) are fine.
 */
export function describeSafeStorageBackend(
  backend: string,
  acceptedPlaintext: boolean,
): { ok: true; warning?: string } | { ok: false; reason: string } {
  const b = backend.trim().toLowerCase();
  if (b === PLAINTEXT_BACKEND) {
    if (acceptedPlaintext) {
      return {
        ok: true,
        warning: 'no system keyring was found: secrets are stored with a fixed key that anyone who can read your files can undo (you accepted this)',
      };
    }
    return {
      ok: false,
      reason:
        "no system keyring (GNOME Keyring / libsecret or KWallet) is available, so Electron would store secrets as plain text ('basic_text'). " +
        'Secrets are refused until a keyring is running, or until you accept storing them without real encryption.',
    };
  }
  if (b === '' || b === 'unknown') {
    return { ok: false, reason: 'the secret storage backend is not known (was it asked before the app was ready?); secrets cannot be stored safely' };
  }
  return { ok: true };
}
