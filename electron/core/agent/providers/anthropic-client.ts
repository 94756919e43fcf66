/**
 * A ModelClient for Anthropic's messages API through `@anthropic-ai/sdk`: streamed, with
 * tools (tool_use blocks whose input arrives as input_json_delta pieces), usage from
 * message_start and message_delta. System messages become the `system` parameter; tool
 * results become tool_result blocks in a user message; consecutive messages of one role
 * are merged, as the API wants turns to alternate. A tool's images go to a model known to take
 * them (./image-input.ts) as image blocks of its tool_result (a user message's, of that message).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ImageBlockParam, MessageCreateParamsStreaming, MessageParam, RawMessageStreamEvent, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { THINKING_BUDGET, paramSupport } from '../../../../shared/model/model-params';
import type { ModelClient, ModelImage, ModelMessage, ModelRequest, ModelStepResult, ModelToolCall, ModelToolSpec } from '../types';
import { acceptsImages, planImages, withNote } from './image-input';
import { cancelled, providerError, streamEndedEarly, streamInvalid } from './errors';
import { STREAM_IDLE_TIMEOUT_MS } from './idle-timer';
import { readStream } from './read-stream';
import { LIST_MODELS_TIMEOUT_MS, NO_KEY_PLACEHOLDER, STEP_TIMEOUT_MS, type ClientConnection } from './openai-client';

/** Anthropic requires max_tokens; used when the request names none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const MODELS_MAX = 5000;

/** The SDK adds /v1/...: a base URL written with /v1 (as for OpenAI-compatible ones) loses it. */
export function anthropicBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export class AnthropicModelClient implements ModelClient {
  constructor(private readonly conn: ClientConnection) {}

  private sdk(timeout: number): Anthropic {
    return new Anthropic({
      baseURL: anthropicBaseUrl(this.conn.baseUrl),
      apiKey: this.conn.key() ?? NO_KEY_PLACEHOLDER,
      authToken: null,
      maxRetries: 0,
      timeout,
      logLevel: 'off',
      ...(this.conn.fetch ? { fetch: this.conn.fetch } : {}),
    });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const ids: string[] = [];
      for await (const m of this.sdk(LIST_MODELS_TIMEOUT_MS).models.list({ limit: 1000 }, { signal })) {
        if (typeof m?.id === 'string') ids.push(m.id);
        if (ids.length >= MODELS_MAX) break;
      }
      return ids;
    } catch (e) {
      if (e instanceof SyntaxError || e instanceof TypeError) throw streamInvalid(this.conn.baseUrl, 'the model list is not the JSON the Anthropic API returns');
      throw providerError(e, { baseUrl: this.conn.baseUrl, signal, redact: this.conn.redact });
    }
  }

  async step(req: ModelRequest, onText: (chunk: string) => void, signal: AbortSignal): Promise<ModelStepResult> {
    const baseUrl = this.conn.baseUrl;
    const ctx = { baseUrl, signal, redact: this.conn.redact };
    if (signal.aborted) throw cancelled();
    const { system, messages } = toAnthropicMessages(req.messages, { images: acceptsImages('anthropic', req.model) });
    const thinking = thinkingBudget(req);
    const params: MessageCreateParamsStreaming = {
      model: req.model,
      max_tokens: req.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS + (thinking ?? 0),
      messages,
      stream: true,
    };
    if (system) params.system = system;
    // No temperature: the API version this library sends refuses one (shared/model/model-params.ts).
    if (thinking !== undefined) params.thinking = { type: 'enabled', budget_tokens: thinking };
    if (req.tools.length > 0) params.tools = toAnthropicTools(req.tools);

    let text = '';
    let stop: string | null | undefined;
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let stopped = false;
    const blocks = new Map<number, { id: string; name: string; args: string }>();
    await readStream<RawMessageStreamEvent>(
      (sig) => this.sdk(STEP_TIMEOUT_MS).messages.create(params, { signal: sig }),
      (ev) => {
        switch (ev?.type) {
          case 'message_start':
            inputTokens = count(ev.message?.usage?.input_tokens) ?? inputTokens;
            outputTokens = count(ev.message?.usage?.output_tokens) ?? outputTokens;
            break;
          case 'content_block_start':
            if (ev.content_block?.type === 'tool_use') {
              blocks.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, args: '' });
            } else if (ev.content_block?.type === 'text' && ev.content_block.text) {
              text += ev.content_block.text;
              onText(ev.content_block.text);
            }
            break;
          case 'content_block_delta':
            if (ev.delta?.type === 'text_delta' && ev.delta.text) {
              text += ev.delta.text;
              onText(ev.delta.text);
            } else if (ev.delta?.type === 'input_json_delta') {
              const b = blocks.get(ev.index);
              if (!b) throw streamInvalid(baseUrl, `arguments arrived for block #${ev.index}, which is not a tool call`);
              b.args += ev.delta.partial_json ?? '';
            }
            break;
          case 'message_delta':
            if (ev.delta?.stop_reason) stop = ev.delta.stop_reason;
            outputTokens = count(ev.usage?.output_tokens) ?? outputTokens;
            if (count(ev.usage?.input_tokens ?? undefined) !== undefined) inputTokens = count(ev.usage.input_tokens);
            break;
          case 'message_stop':
            stopped = true;
            break;
          default:
            break;
        }
      },
      { ...ctx, idleMs: this.conn.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS, api: 'messages' },
    );
    if (!stopped && !stop) throw streamEndedEarly(baseUrl, 'no stop reason arrived');

    const toolCalls: ModelToolCall[] = [...blocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, b]) => {
        if (typeof b.name !== 'string' || !b.name) throw streamInvalid(baseUrl, `tool call #${index + 1} has no name`);
        // A tool_use with no input deltas has the input {}.
        return { callId: b.id, name: b.name, argsText: b.args === '' ? '{}' : b.args };
      });
    const usage = inputTokens !== undefined || outputTokens !== undefined ? { ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}) } : undefined;
    return { text, toolCalls, ...(usage ? { usage } : {}), stopReason: stopReasonOf(stop, toolCalls.length) };
  }
}

/**
 * The extended-thinking budget of this step, if it gets one: a model with thinking, reasoning on,
 * and a step that starts the assistant's reply (its last message is the user's). A step after
 * tool results goes without: the API wants the earlier thinking blocks back then, and the
 * timeline does not keep them. The budget stays below max_tokens and at the API's least (1024).
 */
export function thinkingBudget(req: Pick<ModelRequest, 'model' | 'reasoning' | 'maxOutputTokens' | 'messages'>): number | undefined {
  if (!req.reasoning || req.reasoning === 'off' || !paramSupport('anthropic', req.model).reasoning) return undefined;
  if (req.messages.at(-1)?.role !== 'user') return undefined;
  const budget = Math.min(THINKING_BUDGET[req.reasoning], (req.maxOutputTokens ?? Infinity) - 1);
  return budget >= THINKING_BUDGET.low ? budget : undefined;
}

function count(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function stopReasonOf(stop: string | null | undefined, calls: number): ModelStepResult['stopReason'] {
  if (calls > 0 || stop === 'tool_use') return 'tools';
  if (stop === 'end_turn' || stop === 'stop_sequence') return 'end';
  if (stop === 'max_tokens') return 'length';
  return 'other';
}

export function toAnthropicTools(tools: ModelToolSpec[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: (t.parameters ?? { type: 'object', properties: {} }) as Tool['input_schema'],
  }));
}

/** Arguments as the API wants them (an object); text that is not a JSON object is kept under `_raw`. */
function inputOf(argsText: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(argsText);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // falls through
  }
  return argsText.trim() === '' ? {} : { _raw: argsText };
}

type Block = Exclude<MessageParam['content'], string>[number];

/** With `images` (the model takes them), a tool's or a user's images as image blocks; without, or for one not sent, the text says it is not shown. */
export function toAnthropicMessages(messages: ModelMessage[], opts: { images?: boolean } = {}): { system: string; messages: MessageParam[] } {
  const plan = planImages(messages, opts.images === true);
  const system: string[] = [];
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  messages.forEach((m, i) => {
    const images = plan.get(i);
    switch (m.role) {
      case 'system':
        if (m.text) system.push(m.text);
        break;
      case 'user': {
        const text = withNote(m.text, images?.note ?? '');
        push('user', [...(text ? [{ type: 'text' as const, text }] : []), ...(images?.send ?? []).map(imageBlock)]);
        break;
      }
      case 'assistant': {
        const blocks: Block[] = [];
        if (m.text) blocks.push({ type: 'text', text: m.text });
        for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.callId, name: c.name, input: inputOf(c.argsText) });
        push('assistant', blocks);
        break;
      }
      case 'tool': {
        const text = withNote(m.text, images?.note ?? '');
        const content = images?.send.length ? [...(text ? [{ type: 'text' as const, text }] : []), ...images.send.map(imageBlock)] : text;
        push('user', [{ type: 'tool_result', tool_use_id: m.callId, content, ...(m.isError ? { is_error: true } : {}) }]);
        break;
      }
    }
  });
  // Tool results first in a user turn: the API wants them right after the tool_use turn.
  for (const turn of out) {
    if (turn.role === 'user') turn.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  }
  return { system: system.join('\n\n'), messages: out };
}

function imageBlock(img: ModelImage): ImageBlockParam {
  // planImages lets only PNG, JPEG, GIF and WebP through.
  return { type: 'image', source: { type: 'base64', media_type: img.mimeType.toLowerCase() as 'image/png', data: img.base64 } };
}
