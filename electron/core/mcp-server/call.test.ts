/**
 * callServedTool's own logic with a stand-in dispatcher: when it watches the client's signal
 * (from the next turn of the event loop, for every call still running), a cancel that came
 * before that turn, and that a finished call stops listening.
 */
import { describe, expect, it, vi } from 'vitest';
import type { InvokeOutcome, InvokeRequest } from '../invoke/dispatcher';
import type { ToolView } from '../../../shared/model/tool';
import { callServedTool, scriptNeedsTrust, type CallDeps, type ClientConfirmation, type McpSession } from './call';
import type { ServedTool } from './served-tools';

const nextTurn = () => new Promise((r) => setImmediate(r));

function standIn() {
  const pending = new Map<string, (o: InvokeOutcome) => void>();
  const cancelled: string[] = [];
  const dispatcher: CallDeps['dispatcher'] = {
    invoke: (req: InvokeRequest) => new Promise<InvokeOutcome>((resolve) => pending.set(req.invocationId!, resolve)),
    cancel: (id: string) => {
      cancelled.push(id);
      pending.get(id)?.({ ok: false, error: { code: 'CANCELLED', message: 'cancelled by the user' }, invocationId: id, durationMs: 1, attempts: 1 });
      return pending.delete(id);
    },
  };
  const deps = {
    dispatcher,
    toolOutputs: { windowFor: () => ({ contextTokens: 100_000, maxOutputTokens: 1000 }) },
    approvals: { allows: () => true, add: async () => undefined },
    queue: { windowOpen: () => false },
    extractionModel: () => undefined,
    maxResultBytes: () => 1 << 20,
  } as unknown as CallDeps;
  const finish = (id: string, value: unknown) => {
    pending.get(id)!({ ok: true, value, invocationId: id, durationMs: 1, attempts: 1 });
    pending.delete(id);
  };
  return { deps, pending, cancelled, finish };
}

const session: McpSession = { ownerId: 'mcp-test', allowed: new Set(), found: new Set(), client: () => 'test' };
const served = { name: 'echo', bundleSlug: 'b', description: '', inputSchema: { type: 'object' }, tool: { id: 't1', bundleId: 'b1', slug: 'echo', version: '1', requiresApproval: false } as ToolView, approval: null } as ServedTool;

describe('callServedTool and the client’s cancel', () => {
  it('acts on a cancel that came before it watched, and leaves the other calls running', async () => {
    const { deps, pending, cancelled, finish } = standIn();
    const a = new AbortController();
    const b = new AbortController();
    const ra = callServedTool(deps, session, served, { text: 'a' }, a.signal);
    const rb = callServedTool(deps, session, served, { text: 'b' }, b.signal);
    const [idA, idB] = [...pending.keys()];
    a.abort(); // in the same turn: nothing listens yet
    await nextTurn();
    expect(cancelled).toEqual([idA]);
    expect(await ra).toMatchObject({ isError: true, content: [{ text: 'CANCELLED: cancelled by the user' }] });
    finish(idB!, { echo: 'b' });
    expect(await rb).toEqual({ content: [{ type: 'text', text: '{"echo":"b"}' }], structuredContent: { echo: 'b' } });
    b.abort(); // after it ended: nothing to cancel
    expect(cancelled).toEqual([idA]);
  });

  it('listens from the next turn on, and stops listening when the call ends', async () => {
    const { deps, pending, cancelled, finish } = standIn();
    const a = new AbortController();
    const b = new AbortController();
    const ra = callServedTool(deps, session, served, {}, a.signal);
    const rb = callServedTool(deps, session, served, {}, b.signal);
    const [idA, idB] = [...pending.keys()];
    await nextTurn();
    expect(cancelled).toEqual([]);
    b.abort();
    expect(cancelled).toEqual([idB]);
    expect(await rb).toMatchObject({ isError: true });
    finish(idA!, 'done');
    expect(await ra).toEqual({ content: [{ type: 'text', text: 'done' }] });
    a.abort();
    expect(cancelled).toEqual([idB]);
  });

  it('answers an already-cancelled call without running it', async () => {
    const { deps, pending } = standIn();
    const a = new AbortController();
    a.abort();
    expect(await callServedTool(deps, session, served, {}, a.signal)).toMatchObject({ isError: true, content: [{ text: 'CANCELLED: the client cancelled the call' }] });
    expect(pending.size).toBe(0);
  });
});

describe('a script not written in this app, asked with no Toolsmith window open', () => {
  const script = {
    ...served,
    name: 'foreign',
    tool: { ...served.tool, id: 't2', slug: 'foreign', type: 'script', script: { sha256: 'a'.repeat(64) } } as ToolView,
    approval: { reason: { kind: 'script' } },
  } as ServedTool;

  function asking(answer: boolean) {
    const s = standIn();
    const trusted: string[] = [];
    const leaves: { invocationId: string; sha256: string; released: boolean }[] = [];
    const deps: CallDeps = {
      ...s.deps,
      approvals: { allows: () => false, add: s.deps.approvals.add },
      trustAllowedScript: async (tool) => trusted.push(tool.id),
      allowScriptOnce: (invocationId, sha256) => {
        const leave = { invocationId, sha256, released: false };
        leaves.push(leave);
        return () => void (leave.released = true);
      },
    };
    const questions: ClientConfirmation[] = [];
    const confirming: McpSession = { ...session, allowed: new Set(), confirm: async (q) => (questions.push(q), answer) };
    return { ...s, deps, trusted, leaves, questions, confirming };
  }

  it("asks the client's user saying it is a script from outside, runs that call once with leave, and trusts nothing", async () => {
    const { deps, pending, finish, trusted, leaves, questions, confirming } = asking(true);
    const r = callServedTool(deps, confirming, script, { x: 1 });
    await vi.waitFor(() => expect(pending.size).toBe(1));
    const [id] = [...pending.keys()];
    expect(questions).toMatchObject([{ tool: 'b/foreign', outsideScript: true, message: expect.stringMatching(/is a script that was not written in Toolsmith/) }]);
    expect(leaves).toEqual([{ invocationId: id, sha256: 'a'.repeat(64), released: false }]);
    finish(id!, 'ran');
    expect(await r).toEqual({ content: [{ type: 'text', text: 'ran' }] });
    expect(leaves[0]!.released).toBe(true);
    expect(trusted).toEqual([]);
  });

  it('refuses, saying how to trust it, when no question can say what it is', async () => {
    const { deps, pending, trusted, questions, confirming } = asking(true);
    const { allowScriptOnce: _none, ...without } = deps;
    const r = await callServedTool(without, confirming, script, {});
    expect(r).toMatchObject({ isError: true, content: [{ text: scriptNeedsTrust('b/foreign') }] });
    expect(scriptNeedsTrust('b/foreign')).toMatch(/"Trust and run".*toolsmith invoke b\/foreign --trust$/);
    expect(questions).toEqual([]);
    expect(pending.size).toBe(0);
    expect(trusted).toEqual([]);
  });

  it('a tool that asks for another reason: the question is the usual one, and a yes trusts nothing', async () => {
    const { deps, pending, finish, trusted, leaves, questions, confirming } = asking(true);
    const guarded = { ...served, tool: { ...served.tool, requiresApproval: true } as ToolView, approval: { reason: { kind: 'tool' } } } as ServedTool;
    const r = callServedTool(deps, confirming, guarded, {});
    await vi.waitFor(() => expect(pending.size).toBe(1));
    expect(questions[0]!.outsideScript).toBeUndefined();
    finish([...pending.keys()][0]!, 'ok');
    await r;
    expect(leaves).toEqual([]);
    expect(trusted).toEqual([]);
  });
});
