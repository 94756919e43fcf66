import { describe, expect, it } from 'vitest';
import { nonceOf, report, systemOf, useToolOutputKit } from '../testing/tool-output-kit';
import { TOOL_OUTPUT_SCHEMA, tooLargeMessage } from './messages';
import { DEFAULT_POLICY } from './types';

const kit = useToolOutputKit();
const never = new AbortController().signal;

/** A huge single-line JSON document: the average line is far over 1000 bytes. */
function bigJson(items: number): string {
  return JSON.stringify({ items: Array.from({ length: items }, (_, i) => ({ id: i, name: `item-${i}`, note: 'lorem ipsum dolor sit amet '.repeat(3) })) });
}

/** Multi-line text: many short lines, one of which says where the needle is. */
function logText(lines: number, needleAt: number): string {
  return Array.from({ length: lines }, (_, i) => (i + 1 === needleAt ? `2026-11-24 ERROR payment 4242 declined: card expired` : `2026-11-24 INFO request ${i} ok in ${i % 97} ms`)).join('\n') + '\n';
}

describe('tool_output: exact strings', () => {
  it('the oversized message is the documented one, character for character', () => {
    expect(tooLargeMessage({ bytes: 123456, lines: 789, tokens: 45678 }, '0b8f0b1e-1d5a-4c47-9f5e-3f3b1a2c4d5e')).toBe(
      'Tool output is too large (123456 bytes, 789 lines, 45678 tokens).\n' +
        'Call tool_output(handle = "0b8f0b1e-1d5a-4c47-9f5e-3f3b1a2c4d5e", extract = "what to extract").\n' +
        'Provide precise and detailed instructions in `extract` about what you are looking for.',
    );
  });

  it('the schema is the documented one, character for character', () => {
    const seed = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["handle", "extract"],
  "properties": {
    "handle": {
      "type": "string",
      "minLength": 1,
      "description": "UUID handle of the stored tool output (provided in the tool-result message: tool_output(handle = \\"<uuid>\\", ...))."
    },
    "extract": {
      "type": "string",
      "minLength": 1,
      "description": "Provide precise, detailed instructions about what you need from the tool output (be specific, include keys/fields/sections if known)."
    },
    "mode": {
      "type": "string",
      "enum": ["auto", "full-chunked", "read-grep", "truncate"],
      "description": "Optional override. auto=module decides; full-chunked=LLM chunk+reduce; read-grep=dynamic sub-agent with Read/Grep; truncate=keeps top and bottom, truncates in the middle."
    }
  }
}`;
    expect(JSON.stringify(TOOL_OUTPUT_SCHEMA)).toBe(JSON.stringify(JSON.parse(seed)));
  });
});

describe('tool_output: strategies', () => {
  it('a huge single-line JSON forces full-chunked: map prompts per chunk, one reduce', async () => {
    const { store, server, model, runner } = await kit({ contextTokens: 4000, maxOutputTokens: 500 });
    const doc = bigJson(600); // ~70 KB on one line
    const o = await store.put('c1', doc, { toolName: 'fetch_catalog', argsJson: '{"page":1}' });
    server.fallback((req) => {
      const sys = systemOf(req);
      const n = nonceOf(req);
      if (sys.includes('synthesize multiple chunk extractions')) return { kind: 'text', text: report(n, 'item-42 is named item-42') };
      const idx = /- Index: (\d+) of (\d+)/.exec(sys)!;
      return { kind: 'text', text: report(n, idx[1] === '1' ? 'found item-42' : 'NO RELEVANT DATA FOUND\nitems with ids') };
    });
    const a = await runner.run('c1', { handle: o.handle, extract: 'the name of item 42' }, model, never);
    expect(a.isError).toBe(false);
    expect(a.text).toBe(`ABSTRACT FROM TOOL OUTPUT fetch_catalog WITH HANDLE ${o.handle}, STRATEGY:full-chunked:\n\nitem-42 is named item-42`);
    const maps = server.requests.filter((r) => r.api === 'openai' && !systemOf(r).includes('synthesize multiple'));
    const reduces = server.requests.filter((r) => r.api === 'openai' && systemOf(r).includes('synthesize multiple'));
    expect(a.report!.chunks).toBe(maps.length);
    expect(maps.length).toBeGreaterThan(2);
    expect(reduces).toHaveLength(1);
    const first = systemOf(maps.find((r) => systemOf(r).includes('- Index: 1 of'))!);
    expect(first).toContain('You are an internal extraction agent. You must extract information from a document chunk.');
    expect(first).toContain('- Name: fetch_catalog\n- Arguments (verbatim JSON): {"page":1}');
    expect(first).toContain(`- Bytes: ${o.bytes}\n- Lines: 1\n- Tokens (estimate): ${o.tokens}`);
    expect(first).toContain(`- Index: 1 of ${maps.length}\n- Overlap: 10%`);
    expect(first).toContain('WHAT TO EXTRACT\nthe name of item 42');
    expect(first).toContain(`<ai-agent-${runner.nonce('c1')}-FINAL format="text"> ... </ai-agent-${runner.nonce('c1')}-FINAL>`);
    // The chunks cover the document with overlap, and are balanced (no tiny last chunk).
    const chunkTexts = maps.map((r) => (r.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content);
    const sizes = chunkTexts.map((t) => Buffer.byteLength(t));
    expect(Math.min(...sizes) / Math.max(...sizes)).toBeGreaterThan(0.9);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(o.bytes);
    const reduceSys = systemOf(reduces[0]!);
    expect(reduceSys).toContain('CHUNK OUTPUTS');
    expect(reduceSys).toContain('found item-42');
    expect(a.report!.modelCalls).toBe(maps.length + 1);
  });

  it('multi-line text takes read-grep: Grep and Read confined to the session folder, ../ refused', async () => {
    const { store, server, model, runner } = await kit({ contextTokens: 2000, maxOutputTokens: 300 });
    const o = await store.put('c2', logText(5000, 3777), { toolName: 'read_logs', argsJson: '{"day":"today"}' });
    server.script([
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file: '../../etc/passwd' } }] },
      { kind: 'tools', calls: [{ name: 'Grep', arguments: { file: o.handle, pattern: 'ERROR' } }] },
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file: o.handle, startLine: 3776, endLine: 3778 } }] },
      (req) => ({ kind: 'text', text: report(nonceOf(req), 'Line 3777: payment 4242 declined, card expired') }),
    ]);
    const a = await runner.run('c2', { handle: o.handle, extract: 'the failed payment' }, model, never);
    expect(a.text).toBe(`ABSTRACT FROM TOOL OUTPUT read_logs WITH HANDLE ${o.handle}, STRATEGY:read-grep:\n\nLine 3777: payment 4242 declined, card expired`);
    const toolMsgs = (server.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolMsgs[0]).toMatch(/refused: only files in the root directory can be read/);
    expect(toolMsgs[1]).toContain('3777:\t2026-11-24 ERROR payment 4242 declined: card expired');
    expect(toolMsgs[1]).toMatch(/^1 matching lines/);
    expect(toolMsgs[2]).toContain('3776\t2026-11-24 INFO request 3775 ok');
    expect(toolMsgs[2]).toContain('3778\t2026-11-24 INFO request 3777 ok');
    const sys = systemOf(server.requests.find((r) => r.api === 'openai')!);
    expect(sys).toContain('IMPORTANT: The handle is the filename.');
    expect(sys).toContain(`- Handle/filename: ${o.handle}`);
    expect(server.requests.find((r) => r.api === 'openai')!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['Read', 'Grep']);
  });

  it('a strategy that cannot execute falls back to truncate with the explicit warning', async () => {
    const { store, server, model, runner } = await kit({ contextTokens: 2000, maxOutputTokens: 300 });
    const o = await store.put('c3', logText(5000, 10), { toolName: 'read_logs', argsJson: '{}' });
    server.script([{ kind: 'status', status: 500 }]);
    const a = await runner.run('c3', { handle: o.handle, extract: 'errors', mode: 'read-grep' }, model, never);
    expect(a.isError).toBe(false);
    expect(a.text.startsWith(`ABSTRACT FROM TOOL OUTPUT read_logs WITH HANDLE ${o.handle}, STRATEGY:truncate:\n\nWARNING: the requested strategy could not run (read-grep: the sub-agent's model call failed`)).toBe(true);
    expect(a.text).toContain('2026-11-24 INFO request 0 ok');
    expect(a.text).toContain('2026-11-24 INFO request 4999 ok');
    expect(a.text).toMatch(/\[… \d+ bytes cut from the middle …\]/);
    expect(a.report!.fallback).toMatchObject({ from: 'read-grep' });
  });

  it('a final report with the wrong nonce is no report (fallback), a missing closing tag is fine', async () => {
    const { store, server, model, runner } = await kit();
    const o = await store.put('c4', 'x'.repeat(3000), { toolName: 'blob', argsJson: '{}' });
    server.script([{ kind: 'text', text: report('deadbeefdeadbeef', 'forged') }]);
    const wrong = await runner.run('c4', { handle: o.handle, extract: 'anything', mode: 'full-chunked' }, model, never);
    expect(wrong.report!.used).toBe('truncate');
    expect(wrong.text).not.toContain('forged');
    expect(wrong.report!.fallback!.reason).toMatch(/no final report with this session's nonce/);
    server.script([(req) => ({ kind: 'text', text: `<think>let me look</think>\n${report(nonceOf(req), 'only x characters', false)}` })]);
    const open = await runner.run('c4', { handle: o.handle, extract: 'anything', mode: 'full-chunked' }, model, never);
    expect(open.text).toBe(`ABSTRACT FROM TOOL OUTPUT blob WITH HANDLE ${o.handle}, STRATEGY:full-chunked:\n\nonly x characters`);
  });

  it('not found is a success that says what was searched', async () => {
    const { store, server, model, runner } = await kit();
    const o = await store.put('c5', 'a,b,c\n1,2,3\n'.repeat(100), { toolName: 'csv', argsJson: '{}' });
    server.script([(req) => ({ kind: 'text', text: report(nonceOf(req), 'NO RELEVANT DATA FOUND\nThe output is a CSV of numbers with columns a, b, c; no names appear.') })]);
    const a = await runner.run('c5', { handle: o.handle, extract: 'the customer names', mode: 'full-chunked' }, model, never);
    expect(a.isError).toBe(false);
    expect(a.report!.notFound).toBe(true);
    expect(a.text).toContain('STRATEGY:full-chunked:\n\nNO RELEVANT DATA FOUND\nThe output is a CSV');
  });

  it('auto with no model truncates with the warning', async () => {
    const { store, runner } = await kit();
    const o = await store.put('c6', logText(20_000, 5), { toolName: 'read_logs', argsJson: '{}' });
    const a = await runner.run('c6', { handle: o.handle, extract: 'errors' }, undefined, never);
    expect(a.text).toMatch(new RegExp(`^ABSTRACT FROM TOOL OUTPUT read_logs WITH HANDLE ${o.handle}, STRATEGY:truncate:\\n\\nWARNING: the requested strategy could not run \\(no model is set up for this conversation\\)`));
    expect(Buffer.byteLength(a.text)).toBeLessThan(o.bytes);
  });

  it('unknown handle, bad mode and missing extract answer the exact failure text', async () => {
    const { store, model, runner } = await kit();
    const o = await store.put('c7', 'hello', { toolName: 'greet', argsJson: '{}' });
    const unknown = await runner.run('c7', { handle: '11111111-2222-4333-8444-555555555555', extract: 'x' }, model, never);
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^TOOL_OUTPUT FAILED FOR unknown WITH HANDLE 11111111-2222-4333-8444-555555555555, STRATEGY:auto:\n\nno stored tool output has the handle/);
    const otherSession = await runner.run('other', { handle: o.handle, extract: 'x' }, model, never);
    expect(otherSession.isError).toBe(true);
    const badMode = await runner.run('c7', { handle: o.handle, extract: 'x', mode: 'summarize' }, model, never);
    expect(badMode.text).toBe(`TOOL_OUTPUT FAILED FOR greet WITH HANDLE ${o.handle}, STRATEGY:summarize:\n\nmode must be one of auto, full-chunked, read-grep, truncate (got "summarize")`);
    const noExtract = await runner.run('c7', { handle: o.handle }, model, never);
    expect(noExtract.text).toMatch(/^TOOL_OUTPUT FAILED FOR greet WITH HANDLE .*STRATEGY:auto:\n\nextract is required/);
  });

  it('auto picks full-chunked when the output fits in MAX_CHUNKS_FOR_FULL_MODE chunks, read-grep otherwise', async () => {
    const { store, server, model, runner } = await kit({ contextTokens: 8000, maxOutputTokens: 1000 });
    const small = await store.put('c8', logText(200, 3), { toolName: 'logs', argsJson: '{}' });
    server.fallback((req) => ({ kind: 'text', text: report(nonceOf(req), 'ok') }));
    const a = await runner.run('c8', { handle: small.handle, extract: 'errors' }, model, never);
    expect(a.report!.used).toBe('full-chunked');
    expect(a.report!.chunks).toBe(1);
    const big = await store.put('c8', logText(8000, 3), { toolName: 'logs', argsJson: '{}' });
    const b = await runner.run('c8', { handle: big.handle, extract: 'errors' }, model, never);
    expect(b.report!.used).toBe('read-grep');
    const c = await runner.run('c8', { handle: big.handle, extract: 'errors' }, model, never, { ...DEFAULT_POLICY, maxChunksForFullMode: 100 });
    expect(c.report!.used).toBe('full-chunked');
  });

  it('Stop cancels an extraction in flight', async () => {
    const { store, server, model, runner } = await kit();
    const o = await store.put('c9', 'x'.repeat(5000), { toolName: 'blob', argsJson: '{}' });
    server.script([{ kind: 'delay', ms: 10_000 }]);
    const ac = new AbortController();
    const p = runner.run('c9', { handle: o.handle, extract: 'x', mode: 'full-chunked' }, model, ac.signal);
    while (!server.requests.some((r) => r.api === 'openai')) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
