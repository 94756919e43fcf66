/**
 * The agent loop with the gate (docs/design/tool-outputs.md): tool_output is listed only while
 * the conversation has stored outputs, never on the last step, and works when the model calls
 * several tools in one step; results that fit pass whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { gptCounter } from '../llm/tokens';
import { call, harness, type Harness } from '../testing/agent-harness';
import { TOOL_OUTPUT_NOT_OFFERED, toolOutputExpired } from './tool-calls';
import type { ModelRequest } from './types';

const tempDir = useTempDirs();
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const MODEL = { providerId: 'p1', model: 'm1' };
const names = (r: ModelRequest) => r.tools.map((t) => t.name);

async function setup(maxSteps: number) {
  const h = await harness(await tempDir(), { maxSteps, toolOutputs: true });
  open.push(h);
  const c = h.conversations.create(undefined, MODEL);
  const send = async (text: string) => {
    await h.chat.send(c.id, text);
    await h.loop.settled(c.id);
  };
  return { h, c, send };
}

describe('tool_output in the agent loop', () => {
  it('is offered once an output is stored, not on the last step; several calls in one step work', async () => {
    const { h, c, send } = await setup(4);
    let handle = '';
    h.models.script = [
      // Step 1: two calls at once, one oversized (15 KB > the 4 KiB cap), one small.
      { toolCalls: [call('big', { lines: 1000 }), call('echo', { text: 'small' })] },
      // Step 2: the model extracts and echoes again, in one step.
      (req) => {
        const told = req.messages.filter((m) => m.role === 'tool').map((m) => m.text);
        handle = /handle = "([0-9a-f-]{36})"/.exec(told.join('\n'))![1]!;
        return { toolCalls: [call('tool_output', { handle, extract: 'how many lines', mode: 'truncate' }), call('echo', { text: 'again' })] };
      },
      { toolCalls: [call('echo', { text: 'third' })] },
      { text: 'done' },
    ];
    await send('go');
    const reqs = h.models.requests;
    expect(reqs).toHaveLength(4);
    expect(names(reqs[0]!)).not.toContain('tool_output');
    expect(names(reqs[1]!)).toContain('tool_output');
    expect(names(reqs[2]!)).toContain('tool_output');
    // The last step (4 of 4): not offered (docs/design/tool-outputs.md, decision 14).
    expect(names(reqs[3]!)).not.toContain('tool_output');
    const results = reqs[2]!.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(results.some((t) => t.startsWith(`ABSTRACT FROM TOOL OUTPUT big WITH HANDLE ${handle}, STRATEGY:truncate:\n\nWARNING:`))).toBe(true);
    expect(results).toContain('{"echo":"again"}');
    // The small result reached the model whole, the big one as the message.
    const step2 = reqs[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(step2).toContain('{"echo":"small"}');
    // Stored as routing writes it: the object as indented JSON.
    const stored = JSON.stringify({ echo: 'line of output\n'.repeat(1000) }, null, 2);
    expect(step2.find((t) => t.startsWith('Tool output is too large'))).toMatch(
      new RegExp(`^Tool output is too large \\(${Buffer.byteLength(stored)} bytes, 3 lines, ${gptCounter(false).count(stored).tokens} tokens\\)\\.`),
    );
    const card = h.conversations.messages(c.id).find((m) => m.tool?.slug === 'tool_output' && m.tool.status === 'ok')!.tool!;
    expect(card.extraction).toMatchObject({ handle, requested: 'truncate', used: 'truncate', modelCalls: 0 });
  });

  it('a result over the model\'s free window is oversized even under the bytes cap', async () => {
    const { h, send } = await setup(3);
    h.settings.toolOutputs = { ...h.settings.toolOutputs, maxResultBytes: 10_000_000, defaultWindow: { contextTokens: 2000, maxOutputTokens: 500 } };
    h.models.script = [{ toolCalls: [call('big', { lines: 600 })] }, { text: 'ok' }];
    await send('go');
    const told = h.models.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.text)[0]!;
    const text = JSON.stringify({ echo: 'line of output\n'.repeat(600) }, null, 2);
    const bytes = Buffer.byteLength(text);
    const tokens = gptCounter(false).count(text).tokens;
    // Under the bytes cap; its tokens overflow the 1,500 free tokens of the window.
    expect(bytes).toBeLessThan(10_000_000);
    expect(tokens).toBeGreaterThan(1500);
    expect(told).toMatch(new RegExp(`^Tool output is too large \\(${bytes} bytes, 3 lines, ${tokens} tokens\\)`));
  });

  it('a tool_output call on the last step is refused, not run', async () => {
    const { h, c, send } = await setup(2);
    let handle = '';
    h.models.script = [
      { toolCalls: [call('big', { lines: 1000 })] },
      (req) => {
        handle = /handle = "([0-9a-f-]{36})"/.exec(req.messages.filter((m) => m.role === 'tool').map((m) => m.text).join('\n'))![1]!;
        return { toolCalls: [call('tool_output', { handle, extract: 'x', mode: 'truncate' })] };
      },
    ];
    await send('go');
    expect(names(h.models.requests[1]!)).not.toContain('tool_output');
    const card = h.conversations.messages(c.id).filter((m) => m.tool?.slug === 'tool_output').at(-1)!.tool!;
    expect(card.status).toBe('error');
    expect(card.error!.message).toBe(TOOL_OUTPUT_NOT_OFFERED);
    expect(card.extraction).toBeUndefined();
  });

  it('a handle gone since the output was stored (a restart) is reported as expired, not as the last step', async () => {
    const { h, c, send } = await setup(4);
    let handle = '';
    h.models.script = [
      { toolCalls: [call('big', { lines: 1000 })] },
      (req) => {
        handle = /handle = "([0-9a-f-]{36})"/.exec(req.messages.filter((m) => m.role === 'tool').map((m) => m.text).join('\n'))![1]!;
        return { text: 'stored' };
      },
    ];
    await send('go');
    // The app restarts: the conversation's stored outputs end with the session.
    await h.toolOutputs!.endSession(c.id);
    expect(h.toolOutputs!.hasOutputs(c.id)).toBe(false);
    h.models.script = [{ toolCalls: [call('tool_output', { handle, extract: 'x', mode: 'truncate' })] }, { text: 'ok' }];
    await send('what did it say?');
    const card = h.conversations.messages(c.id).filter((m) => m.tool?.slug === 'tool_output').at(-1)!.tool!;
    expect(card.status).toBe('error');
    expect(card.error).toEqual({ code: 'NOT_FOUND', message: toolOutputExpired(handle) });
    expect(card.error!.message).toContain('has expired');
  });

  describe('extraction thresholds: Settings, then the conversation, then the turn (a workflow)', () => {
    /** A model that stores a big output, asks tool_output (auto) about it, answers every extraction prompt with a report. */
    function extractingModel(h: Harness) {
      let asked = false;
      const step = (req: ModelRequest) => {
        const system = req.messages.find((m) => m.role === 'system')?.text ?? '';
        const nonce = /<ai-agent-([0-9a-f]+)-FINAL/.exec(system)?.[1];
        if (nonce) return { text: `<ai-agent-${nonce}-FINAL format="text">1000 lines</ai-agent-${nonce}-FINAL>` };
        const told = req.messages.filter((m) => m.role === 'tool').map((m) => m.text).join('\n');
        const handle = /handle = "([0-9a-f-]{36})"/.exec(told)?.[1];
        if (!handle) return { toolCalls: [call('big', { lines: 1000 })] };
        if (!asked) {
          asked = true;
          return { toolCalls: [call('tool_output', { handle, extract: 'how many lines' })] };
        }
        return { text: 'done' };
      };
      h.models.script = Array.from({ length: 40 }, () => step);
    }
    const usedStrategy = (h: Harness, cid: string) =>
      h.conversations.messages(cid).filter((m) => m.tool?.slug === 'tool_output' && m.tool.status === 'ok').at(-1)!.tool!.extraction!;

    async function setupSmallWindow() {
      const s = await setup(6);
      // ~3,000 tokens (3 lines of JSON, ~5,300 bytes each) against a 2,000-token window: several chunks,
      // and lines under Settings' 10,000 bytes, so auto reads and greps.
      s.h.settings.toolOutputs = { ...s.h.settings.toolOutputs, avgLineBytesForFullMode: 10_000, defaultWindow: { contextTokens: 2000, maxOutputTokens: 500 } };
      extractingModel(s.h);
      return s;
    }

    it("Settings' thresholds: the output needs several chunks, auto takes read-grep", async () => {
      const { h, c, send } = await setupSmallWindow();
      await send('go');
      const x = usedStrategy(h, c.id);
      expect(x).toMatchObject({ requested: 'auto', used: 'read-grep' });
      expect(x.why).toMatch(/> 1\)/);
    });

    it("the conversation's maxChunksForFullMode wins over Settings': auto takes full-chunked", async () => {
      const { h, c, send } = await setupSmallWindow();
      const updated = h.conversations.setExtraction(c.id, { maxChunksForFullMode: 50 });
      expect(updated.extraction).toEqual({ maxChunksForFullMode: 50 });
      await send('go');
      const x = usedStrategy(h, c.id);
      expect(x).toMatchObject({ requested: 'auto', used: 'full-chunked' });
      expect(x.why).toMatch(/≤ 50\)/);
      expect(x.chunks).toBeGreaterThan(1);
    });

    it("a turn's thresholds (a workflow's front matter) win over the conversation's", async () => {
      const { h, c } = await setupSmallWindow();
      h.conversations.setExtraction(c.id, { maxChunksForFullMode: 50 });
      h.conversations.addMessages(c.id, [{ role: 'user', text: 'go' }]);
      h.loop.start({ conversationId: c.id, model: MODEL, prompt: 'go', extraction: { maxChunksForFullMode: 1 } });
      await h.loop.settled(c.id);
      expect(usedStrategy(h, c.id)).toMatchObject({ requested: 'auto', used: 'read-grep' });
    });

    it("the conversation's avgLineBytesForFullMode wins over Settings': long lines take full-chunked", async () => {
      const { h, c, send } = await setupSmallWindow();
      h.conversations.setExtraction(c.id, { avgLineBytesForFullMode: 1000 });
      await send('go');
      const x = usedStrategy(h, c.id);
      expect(x).toMatchObject({ requested: 'auto', used: 'full-chunked' });
      expect(x.why).toMatch(/^average line \d+ bytes > 1000$/);
    });

    it('clearing the conversation\'s thresholds (null or {}) goes back to Settings\'', async () => {
      const { h, c } = await setupSmallWindow();
      h.conversations.setExtraction(c.id, { avgLineBytesForFullMode: 5 });
      expect(h.conversations.get(c.id).extraction).toEqual({ avgLineBytesForFullMode: 5 });
      expect(h.conversations.setExtraction(c.id, {}).extraction).toBeUndefined();
      h.conversations.setExtraction(c.id, { overlapPercent: 20 });
      expect(h.conversations.setExtraction(c.id, null).extraction).toBeUndefined();
    });
  });
});
