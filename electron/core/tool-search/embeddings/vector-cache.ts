/**
 * Tools' vectors, kept so a tool's text is embedded once: in memory, and in
 * `<data>/tool-search/vectors.json` (atomic writes) so a restart embeds nothing again.
 *
 *   { "format": "toolsmith-tool-vectors", "version": 1,
 *     "entries": [ { "k": "<sha-256 of provider, model and the text's hash>", "v": "<float32, base64>" } ] }
 *
 * A key names the provider, the model and the text: a tool whose text changes, or another
 * model, is a new key, and an old vector is simply not asked for again. The cache is bounded
 * (bytes of vectors): the vectors used longest ago go first. A file that cannot be read is
 * moved aside (`vectors.json.corrupt-<time>`), said, and the cache starts empty: vectors are
 * embedded again, nothing fails.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { nodeFs, replaceFile } from '../../lib/durable-fs';
import { moveAside, readJson } from '../../lib/json-file';

export const VECTORS_FILE = path.join('tool-search', 'vectors.json');
/** Bytes of vectors kept by default: some 8,000 tools at 1,536 dimensions. */
export const DEFAULT_MAX_BYTES = 48 * 1024 * 1024;
/** A write waits this long for more vectors, so a slice of tools is one write. */
const FLUSH_DELAY_MS = 500;
/**
 * A write of the whole file waits at least this many times as long as the last one took (at most
 * a minute): while a big registry is embedded, writing takes a bounded share of the time.
 */
const FLUSH_SPACING = 10;
const FLUSH_MAX_DELAY_MS = 60_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cache key of a text embedded by a provider's model (at its base URL: another server is another model). */
export function vectorKey(providerId: string, model: string, text: string, baseUrl = ''): string {
  return sha256(`${providerId}\u0000${model}\u0000${baseUrl}\u0000${sha256(text)}`);
}

export interface VectorCacheOptions {
  dataDir: string;
  maxBytes?: number;
  now?: () => Date;
  /** Told about a damaged file (moved aside) or a write that failed. */
  problem?: (message: string, file: string) => void;
}

export class VectorCache {
  /** In use order: the first was used longest ago. */
  private readonly map = new Map<string, Float32Array>();
  private bytes = 0;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  /** How long the last write of the file took (spaces the next one). */
  private lastWriteMs = 0;
  private writing: Promise<void> = Promise.resolve();
  readonly file: string;
  private readonly maxBytes: number;

  private constructor(private readonly opts: VectorCacheOptions) {
    this.file = path.join(opts.dataDir, VECTORS_FILE);
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  static async open(opts: VectorCacheOptions): Promise<VectorCache> {
    const c = new VectorCache(opts);
    await c.load();
    return c;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): Float32Array | undefined {
    const v = this.map.get(key);
    if (v) {
      // Used now: last to go.
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** Forgets a vector (one of another size than the model gives now). */
  delete(key: string): void {
    const v = this.map.get(key);
    if (!v) return;
    this.map.delete(key);
    this.bytes -= v.byteLength;
    this.dirty = true;
  }

  set(key: string, v: Float32Array): void {
    const old = this.map.get(key);
    if (old) {
      this.bytes -= old.byteLength;
      this.map.delete(key);
    }
    this.map.set(key, v);
    this.bytes += v.byteLength;
    while (this.bytes > this.maxBytes && this.map.size > 1) {
      const [k, first] = this.map.entries().next().value!;
      this.map.delete(k);
      this.bytes -= first.byteLength;
    }
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, Math.min(FLUSH_MAX_DELAY_MS, Math.max(FLUSH_DELAY_MS, this.lastWriteMs * FLUSH_SPACING)));
    this.timer.unref?.();
  }

  /** Writes what changed (one write at a time); a failure is said, and the next change tries again. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const started = performance.now();
      const entries = [...this.map].map(([k, v]) => ({ k, v: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') }));
      try {
        await fsp.mkdir(path.dirname(this.file), { recursive: true });
        await replaceFile(nodeFs, this.file, JSON.stringify({ format: 'toolsmith-tool-vectors', version: 1, entries }), () => undefined);
        this.lastWriteMs = performance.now() - started;
      } catch (e) {
        this.dirty = true;
        this.opts.problem?.(`tool vectors could not be saved: ${(e as Error).message}; they are kept in memory`, this.file);
      }
    });
    return this.writing;
  }

  private async load(): Promise<void> {
    let r;
    try {
      r = await readJson(this.file);
    } catch (e) {
      this.opts.problem?.(`tool vectors could not be read: ${(e as Error).message}; they are embedded again`, this.file);
      return;
    }
    if (r.kind === 'missing') return;
    const entries = r.kind === 'ok' ? parseEntries(r.value) : undefined;
    if (!entries) {
      const why = r.kind === 'corrupt' ? r.message : 'not a file of tool vectors';
      try {
        const aside = await moveAside(this.file, (this.opts.now ?? (() => new Date()))());
        this.opts.problem?.(`tool vectors could not be read (${why}): moved to ${path.basename(aside)}; they are embedded again`, this.file);
      } catch (e) {
        this.opts.problem?.(`tool vectors could not be read (${why}) nor moved aside (${(e as Error).message}); they are embedded again`, this.file);
      }
      return;
    }
    for (const [k, v] of entries) {
      this.map.set(k, v);
      this.bytes += v.byteLength;
    }
    while (this.bytes > this.maxBytes && this.map.size > 1) {
      const [k, first] = this.map.entries().next().value!;
      this.map.delete(k);
      this.bytes -= first.byteLength;
    }
  }
}

/** The file's entries, or undefined when it is not this format. */
function parseEntries(value: unknown): [string, Float32Array][] | undefined {
  const f = value as { format?: unknown; version?: unknown; entries?: unknown } | null;
  if (f?.format !== 'toolsmith-tool-vectors' || f.version !== 1 || !Array.isArray(f.entries)) return undefined;
  const out: [string, Float32Array][] = [];
  for (const e of f.entries as unknown[]) {
    const { k, v } = (e ?? {}) as { k?: unknown; v?: unknown };
    if (typeof k !== 'string' || !/^[0-9a-f]{64}$/.test(k) || typeof v !== 'string') return undefined;
    const bytes = Buffer.from(v, 'base64');
    if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return undefined;
    // Copied: a Float32Array needs its own aligned buffer.
    const vec = new Float32Array(bytes.byteLength / 4);
    new Uint8Array(vec.buffer).set(bytes);
    if (!vec.every(Number.isFinite)) return undefined;
    out.push([k, vec]);
  }
  return out;
}
