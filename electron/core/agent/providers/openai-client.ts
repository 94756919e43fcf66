/**
 * A ModelClient for any OpenAI-compatible endpoint (Ollama, LM Studio, llama.cpp server,
 * vLLM, OpenRouter, OpenAI) through the `openai` library: chat completions, streamed, with
 * tools; tool-call deltas are gathered by index; usage comes in the last chunk
 * (stream_options.include_usage). No retries: a failure goes to the user as it is.
 * A tool's images go to a model known to take them (./image-input.ts): a tool message carries
 * text only, so they follow the turn's tool messages in a user message of image_url parts.
 */
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { AppError } from '../../../../shared/errors';
import { isOpenAIReasoningModel, paramSupport } from '../../../../shared/model/model-params';
import type { ModelClient, ModelImage, ModelMessage, ModelRequest, ModelStepResult, ModelToolCall, ModelToolSpec } from '../types';
import { cancelled, providerError, streamEndedEarly, streamInvalid } from './errors';
import { STREAM_IDLE_TIMEOUT_MS } from './idle-timer';
import { acceptsImages, planImages, withNote } from './image-input';
import { readStream } from './read-stream';

export interface ClientConnection {
  baseUrl: string;
  /** The key for this call, or undefined (local servers need none). Read on every call. */
  key: () => string | undefined;
  /** Removes secret values from text the provider sent back. */
  redact: (text: string) => string;
  /** For tests. */
  fetch?: typeof fetch;
  /** How long a streamed reply may stay silent after its headers (default STREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/** Sent when no key is stored: the library requires one, local servers ignore it. */
export const NO_KEY_PLACEHOLDER = 'not-needed';
export const LIST_MODELS_TIMEOUT_MS = 15_000;
export const STEP_TIMEOUT_MS = 10 * 60_000;
const MODELS_MAX = 5000;

export class OpenAIModelClient implements ModelClient {
  constructor(private readonly conn: ClientConnection) {}

  private sdk(timeout: number): OpenAI {
    return new OpenAI({
      baseURL: this.conn.baseUrl.replace(/\/+$/, ''),
      apiKey: this.conn.key() ?? NO_KEY_PLACEHOLDER,
      maxRetries: 0,
      timeout,
      logLevel: 'off',
      ...(this.conn.fetch ? { fetch: this.conn.fetch } : {}),
    });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ctx = { baseUrl: this.conn.baseUrl, signal, redact: this.conn.redact };
    try {
      const ids: string[] = [];
      for await (const m of this.sdk(LIST_MODELS_TIMEOUT_MS).models.list({ signal })) {
        if (typeof m?.id === 'string') ids.push(m.id);
        if (ids.length >= MODELS_MAX) break;
      }
      return ids;
    } catch (e) {
      if (e instanceof SyntaxError || e instanceof TypeError) throw streamInvalid(this.conn.baseUrl, 'the model list is not the JSON the OpenAI API returns');
      throw providerError(e, ctx);
    }
  }

  async step(req: ModelRequest, onText: (chunk: string) => void, signal: AbortSignal): Promise<ModelStepResult> {
    const baseUrl = this.conn.baseUrl;
    const ctx = { baseUrl, signal, redact: this.conn.redact };
    if (signal.aborted) throw cancelled();
    const params: ChatCompletionCreateParamsStreaming = {
      model: req.model,
      messages: toOpenAIMessages(req.messages, { images: acceptsImages('openai-compatible', req.model) }),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (req.tools.length > 0) params.tools = toOpenAITools(req.tools);
    if (req.maxOutputTokens !== undefined) {
      // OpenAI's reasoning models refuse max_tokens, wherever they are served.
      if (/(^|\.)openai\.com$/i.test(hostOf(baseUrl)) || isOpenAIReasoningModel(req.model)) params.max_completion_tokens = req.maxOutputTokens;
      else params.max_tokens = req.maxOutputTokens;
    }
    // Only what the model takes: the rest is left out (Conversation settings say so), never a refused request.
    const support = paramSupport('openai-compatible', req.model);
    if (req.temperature !== undefined && support.temperature) params.temperature = req.temperature;
    if (req.reasoning !== undefined && support.reasoning) {
      if (req.reasoning !== 'off') params.reasoning_effort = req.reasoning;
      else if (support.reasoningOff) params.reasoning_effort = 'minimal';
    }

    let text = '';
    let finish: string | null | undefined;
    let usage: ModelStepResult['usage'];
    const calls = new Map<number, { id: string; name: string; args: string }>();
    await readStream<ChatCompletionChunk>(
      (sig) => this.sdk(STEP_TIMEOUT_MS).chat.completions.create(params, { signal: sig }),
      (chunk) => {
          if (!chunk || typeof chunk !== 'object') throw streamInvalid(baseUrl, 'a chunk is not an object');
          if (chunk.usage) usage = { inputTokens: count(chunk.usage.prompt_tokens), outputTokens: count(chunk.usage.completion_tokens) };
          const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
          if (!choice) return;
          const delta = choice.delta ?? {};
          if (typeof delta.content === 'string' && delta.content.length > 0) {
            text += delta.content;
            onText(delta.content);
          }
          for (const tc of delta.tool_calls ?? []) {
            const index = typeof tc.index === 'number' ? tc.index : calls.size;
            const acc = calls.get(index) ?? { id: '', name: '', args: '' };
            if (tc.id) acc.id = tc.id;
            if (tc.function?.name) acc.name += tc.function.name;
            if (tc.function?.arguments) acc.args += tc.function.arguments;
            calls.set(index, acc);
          }
          if (choice.finish_reason) finish = choice.finish_reason;
      },
      { ...ctx, idleMs: this.conn.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS, api: 'chat' },
    );
    if (!finish) throw streamEndedEarly(baseUrl, 'no finish reason arrived');

    const toolCalls: ModelToolCall[] = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => {
        if (!c.name) throw streamInvalid(baseUrl, `tool call #${index + 1} has no name`);
        return { callId: c.id || `call_${index}_${Date.now().toString(36)}`, name: c.name, argsText: c.args };
      });
    return { text, toolCalls, ...(usage ? { usage } : {}), stopReason: stopReasonOf(finish, toolCalls.length) };
  }
}

function count(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

function stopReasonOf(finish: string, calls: number): ModelStepResult['stopReason'] {
  // Some servers (Ollama among them) say "stop" while sending tool calls.
  if (calls > 0) return 'tools';
  if (finish === 'stop') return 'end';
  if (finish === 'length') return 'length';
  if (finish === 'tool_calls' || finish === 'function_call') return 'tools';
  return 'other';
}

export function toOpenAITools(tools: ModelToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: (t.parameters ?? { type: 'object', properties: {} }) as Record<string, unknown> },
  }));
}

/**
 * The messages as chat completions wants them. With `images` (the model takes them), a user
 * message's images are image_url parts of it, and a tool result's images follow the tool
 * messages of their turn in a user message (each after a line naming the call and the image; the
 * next user message, when one comes right after, is that message);
 * without, or for an image not sent, the text says it is not shown.
 */
export function toOpenAIMessages(messages: ModelMessage[], opts: { images?: boolean } = {}): ChatCompletionMessageParam[] {
  const plan = planImages(messages, opts.images === true);
  const out: ChatCompletionMessageParam[] = [];
  /** A finished turn's tool images, waiting for the end of its tool messages. */
  let pending: ChatCompletionContentPart[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: 'user', content: pending });
    pending = [];
  };
  messages.forEach((m, i) => {
    const images = plan.get(i);
    // A user message right after takes the tool images in (one user turn, not two in a row).
    if (m.role !== 'tool' && m.role !== 'user') flush();
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: m.text });
        break;
      case 'user': {
        const text = withNote(m.text, images?.note ?? '');
        const parts: ChatCompletionContentPart[] = [...pending, { type: 'text', text }, ...(images?.send ?? []).map(imagePart)];
        pending = [];
        out.push(parts.length > 1 ? { role: 'user', content: parts } : { role: 'user', content: text });
        break;
      }
      case 'assistant':
        out.push(
          m.toolCalls && m.toolCalls.length > 0
            ? {
                role: 'assistant',
                content: m.text || null,
                tool_calls: m.toolCalls.map((c) => ({ id: c.callId, type: 'function' as const, function: { name: c.name, arguments: c.argsText } })),
              }
            : { role: 'assistant', content: m.text },
        );
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.callId, content: withNote(m.text, images?.note ?? '') });
        for (const img of images?.send ?? []) pending.push({ type: 'text', text: `${img.label} of the result of ${m.name} (call ${m.callId}):` }, imagePart(img));
        break;
      default:
        throw new AppError('INTERNAL', `unknown message role ${(m as { role: string }).role}`);
    }
  });
  flush();
  return out;
}

function imagePart(img: ModelImage): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${img.mimeType};base64,${img.base64}` } };
}
