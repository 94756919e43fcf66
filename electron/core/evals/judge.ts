/**
 * An LLM judge: a model reads a rubric, the user's message, the calls the assistant made and
 * its final answer, and answers `{"pass": true|false, "reason": "…"}`. It is asked through the
 * provider's real client, without tools, within the attempt's time limit. A judge that fails,
 * does not answer in time, or answers something else (no verdict, or two that disagree) leaves
 * the attempt unjudged (an error, not a failure of the model under test).
 */
import { AppError } from '../../../shared/errors';
import type { EvalCall } from '../../../shared/model/evals';
import type { ModelRef, Usage } from '../../../shared/model/provider';
import type { ModelClientFactory } from '../llm/types';

export const JUDGE_SYSTEM =
  'You grade one answer of an AI assistant that can call tools. Read the rubric, the user\'s message, the tool calls the assistant made and its final answer. ' +
  'Judge only what the rubric asks. Reply with one JSON object and nothing else: {"pass": true or false, "reason": "one sentence"}.';

/** The most of the answer and of each call's arguments the judge is given. */
const MAX_ANSWER_CHARS = 16_000;
const MAX_ARGS_CHARS = 2_000;

export interface JudgeRequest {
  model: ModelRef;
  rubric: string;
  prompt: string;
  calls: readonly EvalCall[];
  answer: string;
  signal: AbortSignal;
  /** How long the judge may take. */
  timeoutMs: number;
}

export interface JudgeVerdict {
  pass: boolean;
  reason: string;
  usage?: Usage;
}

/** The user message the judge gets. */
export function judgeMessage(r: Pick<JudgeRequest, 'rubric' | 'prompt' | 'calls' | 'answer'>): string {
  const calls = r.calls.filter((c) => c.kind === 'tool' || c.kind === 'unknown');
  const lines = calls.map((c) => {
    let args = JSON.stringify(c.args) ?? '';
    if (args.length > MAX_ARGS_CHARS) args = `${args.slice(0, MAX_ARGS_CHARS)}…`;
    return `- ${c.tool ?? c.name} ${args} → ${c.canned ? 'answered' : c.status}${c.error ? ` (${c.error.code}: ${c.error.message.slice(0, 300)})` : ''}`;
  });
  const answer = r.answer.length > MAX_ANSWER_CHARS ? `${r.answer.slice(0, MAX_ANSWER_CHARS)}…` : r.answer;
  return [
    `Rubric:\n${r.rubric.trim()}`,
    `The user's message:\n${r.prompt}`,
    `The assistant's tool calls:\n${lines.length ? lines.join('\n') : '(none)'}`,
    `The assistant's final answer:\n${answer.trim() || '(no answer)'}`,
  ].join('\n\n');
}

export async function askJudge(clients: ModelClientFactory, r: JudgeRequest): Promise<JudgeVerdict> {
  const client = clients.forProvider(r.model.providerId);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), r.timeoutMs);
  let result;
  try {
    result = await client.step(
      {
        model: r.model.model,
        messages: [
          { role: 'system', text: JUDGE_SYSTEM },
          { role: 'user', text: judgeMessage(r) },
        ],
        tools: [],
      },
      () => undefined,
      AbortSignal.any([r.signal, timeout.signal]),
    );
  } catch (e) {
    if (timeout.signal.aborted && !r.signal.aborted) throw new AppError('TIMEOUT', `it did not answer within ${r.timeoutMs < 1000 ? `${r.timeoutMs} ms` : `${Math.round(r.timeoutMs / 1000)} s`} (the case's time limit)`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const verdict = readVerdict(result.text);
  return { ...verdict, ...(result.usage ? { usage: result.usage } : {}) };
}

/** How much of the reply (its end) is read for a verdict. */
const MAX_READ_CHARS = 32 * 1024;

/** A model's thinking, which may weigh verdicts before it gives one: `<think>…</think>` (or unclosed, to the end). */
const THINKING = /<(think|thinking|reasoning)>[\s\S]*?(?:<\/\1>|$)/gi;

/**
 * The judge's verdict: the last JSON object with a boolean `pass` in its reply, its thinking
 * left out (a code fence or words around it are tolerated). Verdicts that disagree, or none, are
 * an error.
 */
export function readVerdict(text: string): { pass: boolean; reason: string } {
  // Its last 32 KiB: a verdict comes last, and the search for objects stays quick.
  const said = text.replace(THINKING, ' ').slice(-MAX_READ_CHARS);
  const verdicts: { pass: boolean; reason: string }[] = [];
  for (const v of jsonObjects(said)) {
    if (typeof v.pass === 'boolean') verdicts.push({ pass: v.pass, reason: typeof v.reason === 'string' && v.reason.trim() ? v.reason.trim() : '(no reason given)' });
  }
  // Not whole JSON (a quote left unescaped): the "pass" fields it has.
  if (verdicts.length === 0) for (const m of said.matchAll(/"pass"\s*:\s*(true|false)/g)) verdicts.push({ pass: m[1] === 'true', reason: '(the reply was not whole JSON)' });
  const shown = (s: string) => {
    const t = s.trim().replace(/\s+/g, ' ');
    return t ? `"${t.slice(0, 200)}${t.length > 200 ? '…' : ''}"` : 'nothing';
  };
  if (verdicts.length === 0) {
    throw new AppError('VALIDATION_FAILED', `the judge did not answer with the JSON asked for ({"pass": true|false, "reason": "…"}); it said: ${shown(text)}`);
  }
  if (new Set(verdicts.map((v) => v.pass)).size > 1) {
    throw new AppError('VALIDATION_FAILED', `the judge gave verdicts that disagree (pass and fail) instead of one; it said: ${shown(said)}`);
  }
  return verdicts.at(-1)!;
}

/**
 * The JSON objects in the text, in order: from each `{`, the balanced `{…}` that parses (braces
 * inside JSON strings do not count); one that does not parse is searched inside.
 */
function jsonObjects(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let at = text.indexOf('{');
  while (at >= 0) {
    const end = balancedEnd(text, at);
    if (end > 0) {
      try {
        const v = JSON.parse(text.slice(at, end + 1)) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          out.push(v as Record<string, unknown>);
          at = text.indexOf('{', end + 1);
          continue;
        }
      } catch {
        // Not JSON from here: an object may start inside it.
      }
    }
    at = text.indexOf('{', at + 1);
  }
  return out;
}

/** Where the `{` at `start` closes (strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}
