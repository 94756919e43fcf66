/**
 * Semantic search over tools (docs/tool-search.md, "Semantic search"): the tools' texts are
 * embedded once by the chosen provider's model and kept (./vector-cache.ts); a search embeds
 * its query and answers the nearest tools, which the caller fuses with the word ranking
 * (./fusion.ts). Everything here may fail or be slow, and no search waits for it past its time
 * limit: the answer is then "why not", and the caller answers by words alone and says so.
 *
 * - Tools not embedded yet are embedded in the background, one job at a time; a search waits
 *   for that job only up to its time limit, and the job goes on for the next search.
 * - After a failure the endpoint is left alone for a while (FAILURE_PAUSE_MS): eight searches
 *   in a turn do not each wait for an endpoint that is down.
 */
import { AppError } from '../../../../shared/errors';
import type { EmbeddingsTest } from '../../../../shared/model/tool-search';
import type { ToolOfBundle } from '../document';
import { EmbeddingsClient, type EmbeddingsConnection } from './client';
import { SEMANTIC_CANDIDATES, nearest } from './fusion';
import { embeddingText } from './tool-text';
import { vectorKey, type VectorCache } from './vector-cache';
import { untilAborted } from '../../lib/abort';

/** Who embeds: a saved provider, its model, and how to reach it. */
export interface SemanticTarget {
  providerId: string;
  model: string;
  connection: EmbeddingsConnection;
}

/** A tool to embed, made only when its text is not known under `cacheKey`. */
export interface SemanticDoc {
  /** What the search answers (the caller's key: a model-facing name, a tool id). */
  key: string;
  /** Stable while the tool is unchanged (id, stamp, bundle): its text is read once under it. */
  cacheKey: string;
  make: () => ToolOfBundle;
}

export type SemanticAnswer = { used: true; keys: string[] } | { used: false; reason: string };

/** How long a turn's search waits for vectors. */
export const TURN_TIME_LIMIT_MS = 5_000;
/** How long the palette waits (it asks as the user types). */
export const PALETTE_TIME_LIMIT_MS = 1_500;
/** After a failure, searches answer by words for this long before the endpoint is tried again. */
export const FAILURE_PAUSE_MS = 30_000;
const TEXTS_KEPT = 20_000;
const QUERIES_KEPT = 256;

export interface SemanticSearchOptions {
  /** The chosen provider and model now; undefined while semantic search is off. */
  target: () => SemanticTarget | undefined;
  /** The vector cache, opened when first needed. */
  cache: () => Promise<VectorCache>;
  now?: () => number;
  /** The longest any search waits, whatever it asks (tests shorten it). */
  maxWaitMs?: number;
}

interface Job {
  target: string;
  done: number;
  total: number;
  promise: Promise<void>;
}

export class SemanticSearch {
  private readonly texts = new Map<string, { text: string; hash: string; target: string }>();
  private readonly queries = new Map<string, Float32Array>();
  private job: Job | undefined;
  private failure: { target: string; at: number; message: string } | undefined;
  private readonly now: () => number;

  constructor(private readonly opts: SemanticSearchOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Whether semantic search is on (a provider and model chosen). */
  enabled(): boolean {
    return this.opts.target() !== undefined;
  }

  /** Starts embedding the tools not embedded yet, without waiting (after a change of tools or settings). */
  warm(docs: readonly SemanticDoc[]): void {
    const target = this.opts.target();
    if (!target || this.paused(target)) return;
    void this.fill(target, docs).catch(() => undefined);
  }

  /**
   * The tools nearest the query, nearest first (at most `n`), or why there are none within
   * `timeLimitMs`. Never throws, except CANCELLED when `signal` aborts.
   */
  async nearest(query: string, docs: readonly SemanticDoc[], opts: { timeLimitMs: number; signal?: AbortSignal; n?: number }): Promise<SemanticAnswer> {
    const target = this.opts.target();
    if (!target) return { used: false, reason: 'semantic search is off' };
    const paused = this.paused(target);
    if (paused) return { used: false, reason: paused };
    const waitMs = Math.min(opts.timeLimitMs, this.opts.maxWaitMs ?? Number.POSITIVE_INFINITY);
    const deadline = AbortSignal.timeout(waitMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    let cache: VectorCache;
    let q: Float32Array;
    try {
      cache = await this.opts.cache();
      const filled = this.fill(target, docs, cache);
      // Unanswered when the deadline comes: the job goes on for the next search.
      filled.catch(() => undefined);
      [q] = await Promise.all([this.embedQuery(target, query, signal, waitMs), untilAborted(filled, signal)]);
    } catch (e) {
      if (opts.signal?.aborted) throw new AppError('CANCELLED', 'the search was cancelled');
      if (deadline.aborted || (e as AppError).code === 'TIMEOUT') {
        const job = this.job;
        const progress = job && job.target === targetId(target) && job.done < job.total ? ` (the tools are still being embedded: ${job.done} of ${job.total})` : '';
        return { used: false, reason: `the embeddings did not come within ${waitMs / 1000} s${progress}` };
      }
      return { used: false, reason: (e as Error).message };
    }
    const vectors: { key: string; v: Float32Array }[] = [];
    let mismatched = 0;
    for (const d of docs) {
      const hash = this.text(d, target).hash;
      const v = cache.get(hash);
      if (!v) continue;
      if (v.length !== q.length) {
        // Another size than the model gives now: forgotten, so the fill below embeds the tool again.
        cache.delete(hash);
        mismatched = v.length;
        continue;
      }
      vectors.push({ key: d.key, v });
    }
    if (mismatched) {
      void this.fill(target, docs, cache).catch(() => undefined);
      return { used: false, reason: `the query's vector has ${q.length} dimensions and the tools' ${mismatched}: the model changed; the tools are embedded again` };
    }
    return { used: true, keys: nearest(q, vectors, opts.n ?? SEMANTIC_CANDIDATES).map((x) => x.key) };
  }

  /** Settings' "Test": one sentence embedded, with its dimensions and time. */
  async test(target: SemanticTarget): Promise<EmbeddingsTest> {
    const started = this.now();
    try {
      const [v] = await new EmbeddingsClient(target.connection, target.model).embed(['Send a text message to a customer'], { timeoutMs: 15_000 });
      const ms = Math.max(0, this.now() - started);
      if (this.failure?.target === targetId(target)) this.failure = undefined;
      return { ok: true, message: `${v!.length} dimensions in ${ms} ms`, dimensions: v!.length, ms };
    } catch (e) {
      return { ok: false, message: (e as Error).message };
    }
  }

  private paused(target: SemanticTarget): string | undefined {
    const f = this.failure;
    if (!f || f.target !== targetId(target) || this.now() - f.at >= FAILURE_PAUSE_MS) return undefined;
    return f.message;
  }

  private failed(target: SemanticTarget, e: unknown): void {
    if ((e as AppError).code === 'CANCELLED') return;
    this.failure = { target: targetId(target), at: this.now(), message: (e as Error).message };
  }

  private text(d: SemanticDoc, target: SemanticTarget): { text: string; hash: string } {
    const tid = targetId(target);
    const hit = this.texts.get(d.cacheKey);
    if (hit && hit.target === tid) return hit;
    const text = hit?.text ?? embeddingText(d.make());
    const entry = { text, hash: vectorKey(target.providerId, target.model, text, target.connection.baseUrl), target: tid };
    if (this.texts.size >= TEXTS_KEPT) this.texts.delete(this.texts.keys().next().value!);
    this.texts.set(d.cacheKey, entry);
    return entry;
  }

  /** Embeds the docs whose vectors are not cached: after the job running now, in one job. */
  private async fill(target: SemanticTarget, docs: readonly SemanticDoc[], cache?: VectorCache): Promise<void> {
    const c = cache ?? (await this.opts.cache());
    const tid = targetId(target);
    const running = this.job;
    if (running) {
      if (running.target === tid && this.missing(target, docs, c).length === 0) return;
      await running.promise.catch(() => undefined);
      if (this.job && this.job !== running) return this.fill(target, docs, c);
    }
    const missing = this.missing(target, docs, c);
    if (!missing.length) return;
    const client = new EmbeddingsClient(target.connection, target.model);
    const job: Job = { target: tid, done: 0, total: missing.length, promise: Promise.resolve() };
    job.promise = (async () => {
      try {
        // Slices, so a search sees progress and the cache is written as it goes.
        for (let i = 0; i < missing.length; i += 64) {
          const slice = missing.slice(i, i + 64);
          const vs = await client.embed(slice.map((m) => m.text));
          slice.forEach((m, j) => c.set(m.hash, vs[j]!));
          job.done += slice.length;
        }
      } catch (e) {
        this.failed(target, e);
        throw e;
      } finally {
        if (this.job === job) this.job = undefined;
      }
    })();
    this.job = job;
    return job.promise;
  }

  private missing(target: SemanticTarget, docs: readonly SemanticDoc[], c: VectorCache): { text: string; hash: string }[] {
    const seen = new Set<string>();
    const out: { text: string; hash: string }[] = [];
    for (const d of docs) {
      const t = this.text(d, target);
      if (seen.has(t.hash) || c.has(t.hash)) continue;
      seen.add(t.hash);
      out.push(t);
    }
    return out;
  }

  private async embedQuery(target: SemanticTarget, query: string, signal: AbortSignal, timeoutMs: number): Promise<Float32Array> {
    const key = `${targetId(target)}\u0000${query}`;
    const hit = this.queries.get(key);
    if (hit) return hit;
    try {
      const [v] = await new EmbeddingsClient(target.connection, target.model).embed([query], { signal, timeoutMs });
      if (this.queries.size >= QUERIES_KEPT) this.queries.delete(this.queries.keys().next().value!);
      this.queries.set(key, v!);
      return v!;
    } catch (e) {
      // A search's own deadline is not the endpoint's failure.
      if (!signal.aborted) this.failed(target, e);
      throw e;
    }
  }
}

/** The same provider, model and address: vectors and failures are this target's. */
function targetId(t: SemanticTarget): string {
  return `${t.providerId}\u0000${t.model}\u0000${t.connection.baseUrl}`;
}


/** Semantic search that is always off: searches answer by words (a core without an embeddings endpoint, tests). */
export const WORDS_ONLY: Pick<SemanticSearch, 'enabled' | 'nearest'> = {
  enabled: () => false,
  nearest: async () => ({ used: false, reason: 'semantic search is off' }),
};
