/**
 * Documents' summaries written by a model (docs/design/documents.md): made by the model when
 * one is set, else the first lines. Each new version of a text document is summarized in the
 * background by Settings' document summary model: debounced per document (a burst of writes
 * asks once, for the last), a few requests at a time, never in the way of the write or of the
 * tool's result. The summary records the content hash it describes and is kept only while that
 * version is the newest; a failure keeps the first lines and records why. A long document is cut
 * to a budget first, and the prompt says so.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import type { ModelRef } from '../../../shared/model/provider';
import type { ModelClient } from '../llm/types';
import { resolveInWorkspace } from '../lib/workspace';
import type { DocumentStore, TextVersion } from './document-store';
import { SUMMARY_MAX_CHARS } from './text-facts';

/** The model that summarizes, as Settings name it, and how much it can read. */
export interface SummaryModel {
  ref: ModelRef;
  /** Throws when its provider is gone (the failure is recorded). */
  client: () => ModelClient;
  /** Its context window, in tokens (Settings → Tool outputs' windows). */
  contextTokens: number;
}

export interface SummarizerOptions {
  /** Settings' document summary model now; undefined: none is set, nothing is asked. */
  model: () => SummaryModel | undefined;
  store: Pick<DocumentStore, 'latestHash' | 'setModelSummary' | 'setSummaryFailure'>;
  /** A write waits this long for the next one to the same document before it is summarized (default 1.5 s). */
  debounceMs?: number;
  /** Summaries asked at once (default 2). */
  concurrency?: number;
  /** How long one request may take (default 2 minutes). */
  requestTimeoutMs?: number;
  /** Where failures are told, with why (default: the app's log). */
  log?: (message: string) => void;
  /** Injectable for tests. */
  timers?: { set(fn: () => void, ms: number): unknown; clear(handle: unknown): void };
}

/** Characters of a document a model is given at most, whatever its window. */
export const SUMMARY_INPUT_MAX_CHARS = 24_000;
/** The share of the model's window the document may take (at about 4 characters a token). */
const WINDOW_SHARE = 0.5;
const CHARS_PER_TOKEN = 4;
/** A model's summary is cut past this many characters. */
export const MODEL_SUMMARY_MAX_CHARS = 600;
const SUMMARY_OUTPUT_TOKENS = 256;

export const SUMMARY_SYSTEM = `You write the summary of a document kept in a workspace, for someone deciding whether to open it. In one to three sentences (at most ${SUMMARY_MAX_CHARS} characters) say what the document is and what it holds: its subject, its key figures or findings. Answer with the summary only: no preamble, no quotes, no Markdown headings.`;

/** What the model is told of a document cut to the budget. */
export const cutNote = (shown: number, total: number) =>
  `The document is ${total.toLocaleString('en-US')} characters long; only its first ${shown.toLocaleString('en-US')} characters are given below (cut to the summary's budget). Summarize what they show, and say that the rest was not read.`;

interface Job extends TextVersion {
  key: string;
}

export class DocumentSummarizer {
  private readonly timers = new Map<string, { handle: unknown; job: Job }>();
  private readonly queued = new Map<string, Job>();
  private readonly active = new Set<Promise<void>>();
  private readonly controller = new AbortController();
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly opts: SummarizerOptions) {}

  /** A text document's new version: summarized after the debounce, when a summary model is set. */
  schedule(v: TextVersion): void {
    if (this.closed || !this.opts.model()) return;
    const key = `${v.workspaceDir}\0${v.path}`;
    const t = this.timerApi();
    const old = this.timers.get(key);
    if (old) t.clear(old.handle);
    const job: Job = { ...v, key };
    const handle = t.set(() => {
      this.timers.delete(key);
      // One waiting job per document: the newest version.
      this.queued.set(key, job);
      this.pump();
    }, this.opts.debounceMs ?? 1500);
    this.timers.set(key, { handle, job });
  }

  /** Settles when no summary is queued or being asked (a write still in its debounce is not waited for). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops what waits and stops the requests under way (the app closes). */
  async close(): Promise<void> {
    this.closed = true;
    for (const { handle } of this.timers.values()) this.timerApi().clear(handle);
    this.timers.clear();
    this.queued.clear();
    this.controller.abort();
    await Promise.allSettled([...this.active]);
    this.settleIdle();
  }

  private timerApi() {
    return this.opts.timers ?? { set: (fn: () => void, ms: number) => setTimeout(fn, ms), clear: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
  }

  private isIdle(): boolean {
    return this.queued.size === 0 && this.active.size === 0;
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private pump(): void {
    const limit = Math.max(1, this.opts.concurrency ?? 2);
    while (!this.closed && this.active.size < limit && this.queued.size > 0) {
      const [key, job] = this.queued.entries().next().value as [string, Job];
      this.queued.delete(key);
      const run: Promise<void> = this.run(job).finally(() => {
        this.active.delete(run);
        this.pump();
        this.settleIdle();
      });
      this.active.add(run);
    }
    this.settleIdle();
  }

  private async run(job: Job): Promise<void> {
    const { store } = this.opts;
    // A later write already replaced this version: its own job summarizes it.
    if (store.latestHash(job.workspaceDir, job.path) !== job.hash) return;
    const model = this.opts.model();
    if (!model) return;
    const modelName = `${model.ref.providerId}/${model.ref.model}`;
    try {
      const budget = Math.max(1000, Math.min(SUMMARY_INPUT_MAX_CHARS, Math.floor(model.contextTokens * WINDOW_SHARE * CHARS_PER_TOKEN)));
      const read = await readText(job, budget);
      if (read === 'changed') return;
      const summary = await this.ask(model, job, read);
      store.setModelSummary(job.workspaceDir, job.path, job.hash, summary, modelName);
    } catch (e) {
      if (this.closed) return;
      const why = `the summary model ${modelName} could not summarize it: ${(e as Error).message}`;
      if (store.setSummaryFailure(job.workspaceDir, job.path, job.hash, why)) (this.opts.log ?? console.warn)(`document summary of '${job.path}': ${why}; its first lines stay its summary`);
    }
  }

  private async ask(model: SummaryModel, job: Job, read: { text: string; totalChars: number }): Promise<string> {
    const cut = read.text.length < read.totalChars;
    const user = [
      `Document: ${job.path} (${job.mimeType}, ${job.sizeBytes.toLocaleString('en-US')} bytes)`,
      ...(cut ? [cutNote(read.text.length, read.totalChars)] : []),
      '<document>',
      read.text,
      '</document>',
    ].join('\n');
    const signal = AbortSignal.any([this.controller.signal, AbortSignal.timeout(this.opts.requestTimeoutMs ?? 120_000)]);
    const result = await model.client().step(
      {
        model: model.ref.model,
        messages: [
          { role: 'system', text: SUMMARY_SYSTEM },
          { role: 'user', text: user },
        ],
        tools: [],
        maxOutputTokens: SUMMARY_OUTPUT_TOKENS,
      },
      () => undefined,
      signal,
    );
    const summary = cleanSummary(result.text);
    if (!summary) throw new Error('the model answered with no text');
    return summary;
  }
}

/** The model's answer as a summary: one line, no surrounding quotes, cut to MODEL_SUMMARY_MAX_CHARS (… when cut). */
export function cleanSummary(text: string): string {
  const one = text
    .replace(/<think>[\s\S]*?<\/think>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(["“'])(.*)(["”'])$/, '$2')
    .trim();
  return one.length > MODEL_SUMMARY_MAX_CHARS ? `${one.slice(0, MODEL_SUMMARY_MAX_CHARS - 1).trimEnd()}…` : one;
}

/**
 * The document's text, its first `budget` characters, and its length in characters; 'changed'
 * when the file is no longer the version to summarize (another write came, or it is gone).
 */
async function readText(job: Job, budget: number): Promise<{ text: string; totalChars: number } | 'changed'> {
  const p = await resolveInWorkspace(job.workspaceDir, job.path);
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(p.abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'changed';
    throw e;
  }
  if (createHash('sha256').update(bytes).digest('hex') !== job.hash) return 'changed';
  const all = new TextDecoder('utf-8').decode(bytes);
  if (all.length <= budget) return { text: all, totalChars: all.length };
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(all[budget - 1] ?? '') ? budget - 1 : budget;
  return { text: all.slice(0, end), totalChars: all.length };
}
