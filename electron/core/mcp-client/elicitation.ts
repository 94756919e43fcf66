/**
 * Questions MCP servers ask the user mid-call (elicitation), waiting in the app for an answer.
 * A form's schema is read first (shared/model/elicitation.ts): one outside what a form can ask
 * is refused at once with why. A question waits until the user accepts (the answer checked
 * against the form), declines or cancels; until its time is up; until its call is cancelled;
 * or until the last window closes. With no window open it is cancelled at once (nobody can
 * answer). A server that asks too often (a loop) has its further questions declined for a while,
 * and only a few of its questions wait at once.
 */
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { OpenWindows } from '../lib/open-windows';
import { elicitationContentProblem, elicitationFields, ELICITATION_LIMITS, type ElicitAction, type ElicitationRequest, type ElicitField, type ElicitValue } from '../../../shared/model/elicitation';

export const DEFAULT_ELICITATION_TIMEOUT_MS = 10 * 60_000;
/** Questions of one server waiting at once. */
export const MAX_WAITING_PER_SERVER = 3;
/** More questions than this from one server within FLOOD_WINDOW_MS are declined without asking. */
export const FLOOD_MAX = 10;
export const FLOOD_WINDOW_MS = 60_000;

export interface ElicitationAsk {
  bundleId: string;
  server: string;
  tool?: string;
  /** The app's id of the call that asks, when known: its card (chat, tester, palette) shows the question. */
  invocationId?: string;
  /** The request's params as the server sent them (form or URL). */
  params: unknown;
}

export interface ElicitationAnswer {
  action: ElicitAction;
  content?: Record<string, ElicitValue>;
}

export interface ElicitationQueueOptions {
  now: () => Date;
  onChange?: () => void;
  timeoutMs?: number;
  /** Told what happened to a question (the server's log). */
  onEvent?: (bundleId: string, text: string) => void;
}

interface Waiting {
  request: ElicitationRequest;
  fields?: ElicitField[];
  settle: (a: ElicitationAnswer) => void;
}

export class ElicitationQueue {
  /** The last window closing cancels every question. */
  private readonly windows = new OpenWindows(() => {
    for (const id of [...this.waiting.keys()]) this.settle(id, { action: 'cancel' }, "Toolsmith's window was closed before anyone answered");
  });
  private readonly waiting = new Map<string, Waiting>();
  /** When each server last asked, for the flood check; the servers declined for asking too often. */
  private readonly asked = new Map<string, number[]>();
  private readonly flooding = new Set<string>();

  constructor(private readonly opts: ElicitationQueueOptions) {}

  /** A window connected; the answer detaches it (once). The last one closing cancels every question. */
  attachWindow(): () => void {
    return this.windows.attach();
  }

  list(): ElicitationRequest[] {
    return [...this.waiting.values()].map((w) => w.request);
  }

  /**
   * Asks the user. A form outside the subset is refused (an error the server gets as
   * invalid params); otherwise it settles with the user's answer, or with cancel/decline and
   * the reason in the server's log.
   */
  ask(ask: ElicitationAsk, signal?: AbortSignal): Promise<ElicitationAnswer> {
    const p = (typeof ask.params === 'object' && ask.params !== null ? ask.params : {}) as Record<string, unknown>;
    const mode = p.mode === 'url' ? 'url' : 'form';
    let fields: ElicitField[] | undefined;
    let url: string | undefined;
    if (mode === 'form') {
      const f = elicitationFields(p.requestedSchema);
      if (typeof f === 'string') throw new AppError('VALIDATION_FAILED', `the server asked for a form Toolsmith cannot show: ${f}`);
      fields = f;
    } else {
      url = questionUrl(p.url);
    }
    const log = (text: string) => this.opts.onEvent?.(ask.bundleId, text);
    if (!this.windows.any()) {
      log('it asked the user a question, and no Toolsmith window is open to answer it: cancelled');
      return Promise.resolve({ action: 'cancel' });
    }
    const now = this.opts.now().getTime();
    // Only the last FLOOD_MAX + 1 times are kept: a server asking in a loop costs the same each time.
    const recent = (this.asked.get(ask.bundleId) ?? []).filter((t) => t > now - FLOOD_WINDOW_MS).slice(-FLOOD_MAX);
    recent.push(now);
    this.asked.set(ask.bundleId, recent);
    if (recent.length > FLOOD_MAX) {
      // Said once per burst: the log keeps room for the rest.
      if (!this.flooding.has(ask.bundleId)) log(`it asked more than ${FLOOD_MAX} questions within ${FLOOD_WINDOW_MS / 1000} s: further ones are declined without asking`);
      this.flooding.add(ask.bundleId);
      return Promise.resolve({ action: 'decline' });
    }
    this.flooding.delete(ask.bundleId);
    if ([...this.waiting.values()].filter((w) => w.request.bundleId === ask.bundleId).length >= MAX_WAITING_PER_SERVER) {
      log(`it already has ${MAX_WAITING_PER_SERVER} questions waiting: declined without asking`);
      return Promise.resolve({ action: 'decline' });
    }
    const id = uuidv7();
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_ELICITATION_TIMEOUT_MS;
    const message = typeof p.message === 'string' ? p.message.slice(0, ELICITATION_LIMITS.message) : '';
    const request: ElicitationRequest = {
      id,
      bundleId: ask.bundleId,
      server: ask.server,
      ...(ask.tool ? { tool: ask.tool } : {}),
      ...(ask.invocationId ? { invocationId: ask.invocationId } : {}),
      mode,
      message,
      ...(fields ? { fields } : {}),
      ...(url ? { url } : {}),
      requestedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString(),
    };
    log(`it asks the user: ${message.slice(0, 200) || '(no message)'}`);
    return new Promise<ElicitationAnswer>((resolve) => {
      const timer = setTimeout(() => this.settle(id, { action: 'cancel' }, `nobody answered within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      timer.unref?.();
      const onAbort = () => this.settle(id, { action: 'cancel' }, 'its call was cancelled');
      this.waiting.set(id, {
        request,
        ...(fields ? { fields } : {}),
        settle: (a) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(a);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.opts.onChange?.();
      if (signal?.aborted) onAbort();
    });
  }

  /** The user's answer. An accepted form is checked against its fields; false when the question no longer waits. */
  respond(id: string, answer: ElicitationAnswer): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    if (answer.action === 'accept' && w.fields) {
      const content = withoutEmpty(w.fields, answer.content ?? {});
      const problem = elicitationContentProblem(w.fields, content);
      if (problem) throw new AppError('VALIDATION_FAILED', problem, { field: 'content' });
      return this.settle(id, { action: 'accept', content }, 'the user answered');
    }
    return this.settle(id, answer.action === 'accept' ? { action: 'accept' } : { action: answer.action }, answer.action === 'accept' ? 'the user opened the page' : `the user chose ${answer.action}`);
  }

  private settle(id: string, answer: ElicitationAnswer, why: string): boolean {
    const w = this.waiting.get(id);
    if (!w) return false;
    this.waiting.delete(id);
    this.opts.onEvent?.(w.request.bundleId, `its question: ${why} (${answer.action})`);
    w.settle(answer);
    this.opts.onChange?.();
    return true;
  }
}

/** The longest page address a question may show. */
export const MAX_QUESTION_URL = 2_000;

/**
 * The page a server asks the user to open, as it will be shown and opened: an http(s) address
 * without a user name or password (which could make one host look like another), at most
 * MAX_QUESTION_URL characters, in its parsed form (what is shown is what opens).
 */
function questionUrl(raw: unknown): string {
  const refuse = (why: string) => new AppError('VALIDATION_FAILED', `the server asked the user to open a page ${why}`);
  if (typeof raw !== 'string' || raw.length > MAX_QUESTION_URL) throw refuse(`whose address is missing or longer than ${MAX_QUESTION_URL} characters`);
  if (!URL.canParse(raw)) throw refuse('whose address is not a URL');
  const u = new URL(raw);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw refuse('that is not an http(s) address');
  if (u.username || u.password) throw refuse('whose address carries a user name or password');
  return u.href;
}

/** An optional field left empty is not sent. */
function withoutEmpty(fields: readonly ElicitField[], content: Record<string, ElicitValue>): Record<string, ElicitValue> {
  const out: Record<string, ElicitValue> = {};
  for (const [k, v] of Object.entries(content)) {
    const f = fields.find((x) => x.name === k);
    if (f && !f.required && (v === '' || (Array.isArray(v) && v.length === 0 && f.kind === 'multi' && f.minItems === undefined))) continue;
    out[k] = v;
  }
  return out;
}
