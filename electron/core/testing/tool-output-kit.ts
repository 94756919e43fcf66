/**
 * For the tool-output tests: a store on a temp base folder, a real OpenAI-compatible client
 * talking to the scripted model server, and helpers to answer with the session's nonce.
 */
import { afterEach } from 'vitest';
import { OpenAIModelClient } from '../agent/providers/openai-client';
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from './scripted-model-server';
import { useTempDirs } from './temp-dir';
import { ToolOutputStore } from '../tool-output/store';
import { estimateCounter } from '../llm/tokens';
import { ToolOutputRunner } from '../tool-output/tool-output-tool';
import type { ExtractionModel } from '../tool-output/types';

export function useToolOutputKit() {
  const tempDir = useTempDirs();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });
  return async (opts: { contextTokens?: number; maxOutputTokens?: number } = {}) => {
    const base = await tempDir();
    const store = new ToolOutputStore({ baseDir: () => base, tokens: estimateCounter });
    closers.push(() => store.close());
    const server: ScriptedModelServer = await startScriptedModelServer();
    closers.push(() => server.close());
    const client = new OpenAIModelClient({ baseUrl: server.url, key: () => undefined, redact: (t) => t });
    const model: ExtractionModel = { client, model: 'scripted-model', contextTokens: opts.contextTokens ?? 8000, maxOutputTokens: opts.maxOutputTokens ?? 1000 };
    const runner = new ToolOutputRunner({ store, tokens: estimateCounter });
    return { base, store, server, model, runner };
  };
}

/** The system prompt of a recorded chat request. */
export function systemOf(req: RecordedRequest): string {
  const m = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const s = m.find((x) => x.role === 'system');
  return typeof s?.content === 'string' ? s.content : JSON.stringify(s?.content ?? '');
}

/** The nonce named in an extraction prompt. */
export function nonceOf(req: RecordedRequest): string {
  const m = /<ai-agent-([0-9a-f]+)-FINAL/.exec(systemOf(req));
  if (!m) throw new Error('no nonce in the prompt');
  return m[1]!;
}

export function report(nonce: string, content: string, close = true): string {
  return `<ai-agent-${nonce}-FINAL format="text">${content}${close ? `</ai-agent-${nonce}-FINAL>` : ''}`;
}
