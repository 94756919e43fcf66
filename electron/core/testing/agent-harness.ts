/**
 * For the agent loop's tests: a scripted ModelClient (each step answers from a list, honours
 * the signal, records what it was given), and the loop built on the real tool store,
 * dispatcher, routing, conversation and approval stores in a temp folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../../shared/errors';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/model/settings';
import type { ToolView } from '../../../shared/model/tool';
import { ChatService } from '../chat/chat-service';
import { ConversationStore } from '../timeline/conversation-store';
import { EventBus } from '../events';
import { InvokeDispatcher } from '../invoke/dispatcher';
import { InvocationLog } from '../invoke/invocation-log';
import type { LocalFunction, Transport } from '../invoke/types';
import { ProblemLog } from '../problems';
import type { Registry } from '../registry/registry';
import { createRoutingServices } from '../routing';
import { ToolStore } from '../bundles/tool-store';
import { ApprovalStore } from '../agent/approvals';
import { ToolOutputService } from '../tool-output/service';
import { createAgentLoop } from '../agent/loop';
import type { AgentLoopDeps } from '../agent/deps';
import type { ModelClient, ModelClientFactory, ModelRequest, ModelStepResult } from '../agent/types';
import { createWebFunctions } from '../builtin-functions/web';
import { WORDS_ONLY } from '../tool-search/embeddings/semantic';

export const SECRET = 'sk-test-SECRET-value-0123456789';

/** One scripted step: a result (its text streamed in chunks), an error, or a function of the request. */
export type ScriptedStep =
  | (Partial<ModelStepResult> & { chunks?: string[]; delayMs?: number })
  | { error: AppError }
  | { hang: true }
  /** Ends with the text only after `ms`, whatever the signal says (a slow stream's last chunk). */
  | { stubbornMs: number; text?: string }
  | ((req: ModelRequest) => ScriptedStep);

export const call = (name: string, args: unknown, callId?: string) => ({
  callId: callId ?? `c-${Math.random().toString(36).slice(2, 8)}`,
  name,
  argsText: typeof args === 'string' ? args : JSON.stringify(args),
});

export class FakeModels implements ModelClientFactory {
  readonly requests: ModelRequest[] = [];
  script: ScriptedStep[] = [];
  providers = new Set(['p1']);
  /** Called with each step's signal, before the step answers. */
  onStep?: (signal: AbortSignal) => void;

  forProvider(providerId: string): ModelClient {
    if (!this.providers.has(providerId)) throw new AppError('NOT_FOUND', `no provider with id '${providerId}'`);
    return {
      listModels: async () => ['m1'],
      step: (req, onText, signal) => this.step(req, onText, signal),
    };
  }

  private async step(req: ModelRequest, onText: (chunk: string) => void, signal: AbortSignal): Promise<ModelStepResult> {
    this.requests.push(structuredClone(req));
    this.onStep?.(signal);
    let s = this.script.shift();
    if (!s) throw new AppError('INTERNAL', 'the script ran out of steps');
    while (typeof s === 'function') s = s(req);
    if ('error' in s) throw s.error;
    const aborted = () => new AppError('CANCELLED', 'cancelled');
    if ('stubbornMs' in s) {
      await sleep(s.stubbornMs);
      return { text: s.text ?? '', toolCalls: [], stopReason: 'end' };
    }
    if ('hang' in s) {
      return new Promise((_, reject) => {
        if (signal.aborted) reject(aborted());
        signal.addEventListener('abort', () => reject(aborted()), { once: true });
      });
    }
    const text = s.text ?? '';
    for (const chunk of s.chunks ?? (text ? [text] : [])) {
      if (signal.aborted) throw aborted();
      onText(chunk);
      if (s.delayMs) await sleep(s.delayMs, signal).catch(() => undefined);
    }
    if (signal.aborted) throw aborted();
    const toolCalls = s.toolCalls ?? [];
    return { text, toolCalls, usage: s.usage ?? { inputTokens: 10, outputTokens: 5 }, stopReason: s.stopReason ?? (toolCalls.length ? 'tools' : 'end') };
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new AppError('CANCELLED', 'cancelled'));
      },
      { once: true },
    );
  });
}

/** When each `slow` call ran, to measure overlap, and whether its signal fired. */
export const spans: { start: number; end: number; aborted?: boolean }[] = [];

const FUNCTIONS: Record<string, LocalFunction> = {
  'test.echo': async (_ctx, args) => ({ echo: args.text }),
  'test.slow': async (_ctx, args, signal) => {
    const span: (typeof spans)[number] = { start: performance.now(), end: 0 };
    spans.push(span);
    signal.addEventListener('abort', () => (span.aborted = true), { once: true });
    await sleep(Number(args.ms ?? 100), signal);
    span.end = performance.now();
    return { echo: String(args.text ?? '') };
  },
  'test.leak': async () => ({ echo: `the key is ${SECRET}` }),
  'test.big': async (_ctx, args) => ({ echo: 'line of output\n'.repeat(Number(args.lines ?? 1000)) }),
};

const objectOut = { type: 'object', properties: { echo: { type: 'string' } } };

export const RICH_SCHEMA = {
  type: 'object',
  properties: {
    mode: { type: 'string', enum: ['fast', 'slow'], description: 'how to go' },
    tags: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 3 },
    target: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer', minimum: 1 } }, required: ['host'] },
  },
  required: ['mode'],
  additionalProperties: false,
};

const body = (slug: string, functionId: string, argSchema: object, extra: object = {}) => ({
  displayName: `Test ${slug}`,
  description: `the ${slug} tool`,
  tags: [],
  type: 'local' as const,
  argSchema,
  outputSchema: objectOut,
  local: { functionId },
  isEnabled: true,
  ...extra,
});

export interface Harness {
  dir: string;
  models: FakeModels;
  conversations: ConversationStore;
  approvals: ApprovalStore;
  loop: ReturnType<typeof createAgentLoop>;
  chat: ChatService;
  events: EventBus;
  store: ToolStore;
  routing: ReturnType<typeof createRoutingServices>;
  workspace: string;
  settings: Settings;
  toolOutputs?: ToolOutputService;
  tools: Record<string, ToolView>;
  bundleId: string;
  close(): Promise<void>;
}

export async function harness(dir: string, opts: { maxSteps?: number; toolOutputs?: boolean; semantic?: AgentLoopDeps['semantic'] } = {}): Promise<Harness> {
  const resources = path.join(dir, 'resources');
  await fs.mkdir(path.join(resources, 'bundles'), { recursive: true });
  const workspace = path.join(dir, 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  const events = new EventBus();
  const now = () => new Date();
  const problems = new ProblemLog(events, now);
  const store = new ToolStore({ dataDir: dir, resourcesDir: resources, problems, usageFlushMs: 10 });
  await store.open();
  const log = InvocationLog.open(':memory:');
  const redact = (t: string) => t.replaceAll(SECRET, '[redacted]');
  const dispatcher = new InvokeDispatcher({
    store,
    log,
    redact,
    localFunctions: { get: (id) => FUNCTIONS[id] },
    localContext: () => ({ workspaceDir: workspace, now, transport: {} as Transport, allowedHosts: () => [] }),
    defaultTimeoutMs: 10_000,
  });
  const bundleId = uuidv7();
  await store.putBundle(bundleId, { slug: 'tests', displayName: 'Tests', description: '', isEnabled: true });
  const textArgs = { type: 'object', properties: { text: { type: 'string', maxLength: 20 } }, required: ['text'], additionalProperties: false };
  const tools: Record<string, ToolView> = {
    echo: await store.putTool(bundleId, 'echo', '1', body('echo', 'test.echo', textArgs)),
    slow: await store.putTool(bundleId, 'slow', '1', body('slow', 'test.slow', { type: 'object', properties: { ms: { type: 'integer' }, text: { type: 'string' } } })),
    guarded: await store.putTool(bundleId, 'guarded', '1', body('guarded', 'test.echo', textArgs, { requiresApproval: true })),
    rich: await store.putTool(bundleId, 'rich', '1', body('rich', 'test.echo', RICH_SCHEMA)),
    leak: await store.putTool(bundleId, 'leak', '1', body('leak', 'test.leak', { type: 'object' })),
    big: await store.putTool(bundleId, 'big', '1', body('big', 'test.big', { type: 'object', properties: { lines: { type: 'integer' } } })),
  };
  const registry = { store } as unknown as Registry;
  const routing = createRoutingServices({ dataDir: dir, workspaceDir: () => workspace, events, registry, transport: {} as Transport, allowedHosts: () => [], fetchUrl: createWebFunctions()['fetch-url'], now });
  const conversations = ConversationStore.open({ file: path.join(dir, 'conversations.sqlite'), now, onChange: (c) => events.emit('conversations.changed', c) });
  const approvals = await ApprovalStore.open({ dataDir: dir, now, onChange: () => events.emit('approvals.changed', {}) });
  // Without `toolOutputs`, results are never stored behind a handle (the gate lets everything through).
  const maxResultBytes = opts.toolOutputs ? 4096 : 1024 ** 3;
  const settings: Settings = { ...DEFAULT_SETTINGS, modelRouting: [], toolOutputs: { ...DEFAULT_SETTINGS.toolOutputs, baseDir: path.join(dir, 'outputs'), maxResultBytes } };
  const outputService = new ToolOutputService({ settings: () => settings.toolOutputs, router: routing.router });
  const toolOutputs = opts.toolOutputs ? outputService : undefined;
  const models = new FakeModels();
  const loop = createAgentLoop({
    conversations,
    clients: models,
    dispatcher,
    registry: { store },
    routing,
    approvals,
    settings: { get: () => settings },
    events,
    now,
    redact,
    maxSteps: opts.maxSteps,
    toolOutputs: outputService,
    // No agent profiles: no orchestration tools.
    tasks: { agents: { enabled: () => undefined, list: () => [] }, workspaceDir: () => workspace },
    semantic: opts.semantic ?? WORDS_ONLY,
  });
  const chat = new ChatService({ conversations, routing, dispatcher, registry, now, agent: loop, ...(toolOutputs ? { toolOutputs } : {}) });
  return {
    dir,
    models,
    conversations,
    approvals,
    loop,
    chat,
    events,
    store,
    routing,
    workspace,
    settings,
    ...(toolOutputs ? { toolOutputs } : {}),
    tools,
    bundleId,
    async close() {
      loop.stopAll();
      await outputService.close();
      await store.close();
      log.close();
      conversations.close();
    },
  };
}

/** Polls until `check` answers something truthy (or fails after `ms`). */
export async function until<T>(check: () => T | undefined | null | false, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
