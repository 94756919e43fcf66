/**
 * An LLM judge: a model reads a rubric, the user's message, the calls the assistant made and
 * its final answer, and answers `{"pass": true|false, "reason": "…"}`. It is asked through the
 * provider's real client, without tools. A judge that fails, or answers something else, leaves
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
  const result = await client.step(
    {
      model: r.model.model,
      messages: [
        { role: 'system', text: JUDGE_SYSTEM },
        { role: 'user', text: judgeMessage(r) },
      ],
      tools: [],
    },
    () => undefined,
    r.signal,
  );
  const verdict = readVerdict(result.text);
  return { ...verdict, ...(result.usage ? { usage: result.usage } : {}) };
}

/** The judge's JSON, found in its text (a code fence or words around it are tolerated). */
export function readVerdict(text: string): { pass: boolean; reason: string } {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const v = JSON.parse(text.slice(start, end + 1)) as { pass?: unknown; reason?: unknown };
      if (typeof v.pass === 'boolean') return { pass: v.pass, reason: typeof v.reason === 'string' && v.reason.trim() ? v.reason.trim() : '(no reason given)' };
    } catch {
      // Read by pattern below.
    }
  }
  const m = /"pass"\s*:\s*(true|false)/.exec(text);
  if (m) return { pass: m[1] === 'true', reason: '(the reply was not whole JSON)' };
  const shown = text.trim().replace(/\s+/g, ' ');
  throw new AppError('VALIDATION_FAILED', `the judge did not answer with the JSON asked for ({"pass": true|false, "reason": "…"}); it said: ${shown ? `"${shown.slice(0, 200)}${shown.length > 200 ? '…' : ''}"` : 'nothing'}`);
}
