/**
 * A conversation's own system prompt and model parameters (temperature, max tokens, reasoning),
 * and which of them a provider's model takes: a parameter it does not take is left out of the
 * request (the chat's Conversation settings say so) rather than failing the turn.
 */
import { z } from 'zod';
import type { ProviderKind } from './provider';

export const SYSTEM_PROMPT_MAX = 32 * 1024;
export const TEMPERATURE_MAX = 2;
export const MAX_TOKENS_LIMIT = 1_000_000;

export const ReasoningSchema = z.enum(['off', 'low', 'medium', 'high']);
export type Reasoning = z.infer<typeof ReasoningSchema>;

export const SystemPromptSchema = z.string().max(SYSTEM_PROMPT_MAX, `the system prompt is longer than ${SYSTEM_PROMPT_MAX} characters: shorten it`);

export const ModelParamsSchema = z
  .object({
    /** 0 (the most predictable) to 2; absent: the model's default. */
    temperature: z
      .number()
      .min(0, `temperature must be from 0 to ${TEMPERATURE_MAX}`)
      .max(TEMPERATURE_MAX, `temperature must be from 0 to ${TEMPERATURE_MAX}`)
      .optional(),
    /** The most tokens one reply may take; absent: the provider's default. */
    maxTokens: z
      .number()
      .int('max tokens must be a whole number')
      .min(1, 'max tokens must be at least 1')
      .max(MAX_TOKENS_LIMIT, `max tokens must be at most ${MAX_TOKENS_LIMIT.toLocaleString('en-US')}`)
      .optional(),
    /** How hard a reasoning model thinks before it answers; absent: the model's default. */
    reasoning: ReasoningSchema.optional(),
  })
  .strict();
export type ModelParams = z.infer<typeof ModelParamsSchema>;

/** What a provider's model takes of the parameters. */
export interface ParamSupport {
  temperature: boolean;
  maxTokens: boolean;
  reasoning: boolean;
  /** Whether reasoning 'off' can be asked for (else the model's default is kept). */
  reasoningOff: boolean;
}

/** The model's name without a router's prefix: `openai/gpt-5` is `gpt-5`. */
function bare(model: string): string {
  return model.toLowerCase().split('/').pop() ?? '';
}

/** OpenAI's reasoning models (o1, o3, o4-mini, gpt-5...): they take reasoning_effort and refuse temperature. */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d+(-|$)|gpt-5)/.test(bare(model));
}

/** gpt-5 models take reasoning effort 'minimal' (what 'off' asks for); the o-series does not. */
function takesMinimalEffort(model: string): boolean {
  return /^gpt-5/.test(bare(model)) && !/chat/.test(bare(model));
}

/** Claude models with extended thinking (3.7 and the 4 family on). */
export function isAnthropicThinkingModel(model: string): boolean {
  return /claude-(3-7|(opus|sonnet|haiku)-[4-9]|[4-9])/.test(bare(model));
}

/**
 * Anthropic's API (the version its client library sends) refuses a sampling temperature on every
 * model; its thinking models take a thinking budget ('off': none asked for). OpenAI's reasoning
 * models take a reasoning effort and refuse a temperature; other OpenAI-compatible models take a
 * temperature and no reasoning setting.
 */
export function paramSupport(kind: ProviderKind, model: string): ParamSupport {
  if (kind === 'anthropic') {
    const thinking = isAnthropicThinkingModel(model);
    return { temperature: false, maxTokens: true, reasoning: thinking, reasoningOff: thinking };
  }
  const reasoning = isOpenAIReasoningModel(model);
  return { temperature: !reasoning, maxTokens: true, reasoning, reasoningOff: reasoning && takesMinimalEffort(model) };
}

/** Anthropic's thinking budget for each level (the API's least is 1024 tokens). */
export const THINKING_BUDGET: Record<Exclude<Reasoning, 'off'>, number> = { low: 1024, medium: 4096, high: 16_384 };
