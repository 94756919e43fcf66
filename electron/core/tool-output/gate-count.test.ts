/** The gate counts tokens only when the bytes alone cannot settle it (a token covers at least one byte). */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_OUTPUT_SETTINGS, type ToolOutputSettings } from '../../../shared/model/settings';
import { fitsUncounted, ToolOutputService } from './service';
import type { TokenCounter } from '../llm/tokens';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function service(overrides: Partial<ToolOutputSettings>) {
  const baseDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolsmith-gate-count-'));
  dirs.push(baseDir);
  const counted: string[] = [];
  // Counts one token a byte: the most any tokenizer gives.
  const counter: TokenCounter = {
    name: 'a token a byte',
    count: (text) => (counted.push(text), { tokens: Buffer.byteLength(text), exact: true }),
    start: () => ({ add() {}, end: () => ({ tokens: 0, exact: true }) }),
  };
  const svc = new ToolOutputService({ settings: () => ({ ...DEFAULT_TOOL_OUTPUT_SETTINGS, baseDir, ...overrides }), tokens: () => counter });
  return { svc, counted };
}

const req = (text: string, usedTokens?: number) => ({ conversationId: 'c1', toolId: 't1', toolName: 'echo', args: {}, text, ...(usedTokens !== undefined ? { usedTokens } : {}) });

describe('the gate and token counting', () => {
  it('passes a small result without counting its tokens', async () => {
    const { svc, counted } = await service({ defaultWindow: { contextTokens: 1000, maxOutputTokens: 100 } });
    expect(await svc.gate(req('{"echo":"hello"}'))).toEqual({ kind: 'pass' });
    expect(counted).toEqual([]);
  });

  it('counts when the bytes exceed the free window, and stores what the count says is oversized', async () => {
    const { svc, counted } = await service({ defaultWindow: { contextTokens: 1000, maxOutputTokens: 100 } });
    const text = 'x'.repeat(850);
    expect((await svc.gate(req(text, 100))).kind).toBe('stored');
    expect(counted).toEqual([text]);
    // The same bytes with nothing used fit: passed, uncounted.
    expect(await svc.gate(req(text))).toEqual({ kind: 'pass' });
    expect(counted).toHaveLength(1);
  });

  it('sizes an image result by the text a model is given for it, not by its base64', async () => {
    const { svc, counted } = await service({ maxResultBytes: 8 * 1024, defaultWindow: { contextTokens: 1000, maxOutputTokens: 100 } });
    const base64 = 'A'.repeat(4000);
    const value = { content: [{ type: 'text', text: 'a picture' }, { type: 'image', mimeType: 'image/png', bytes: 3000, dataUrl: `data:image/png;base64,${base64}` }] };
    const card = { invocationId: 'i1', bundleId: 'b', slug: 'picture', version: '1', displayName: 'Picture', args: {}, status: 'ok' as const, source: 'model' as const };
    const gated = await svc.gateCard(card, { conversationId: 'c1', tool: { id: 't1', slug: 'picture', outputSchema: {} }, args: {}, value, usedTokens: 100 });
    // Kept whole on its card (the window sees 40 bytes of text, not 4 KB of base64).
    expect(gated.stored).toBeUndefined();
    expect(gated.value).toEqual(value);
    expect(counted.join('')).not.toContain(base64);
  });

  it('stores an image result past the bytes cap as any result that large (the card keeps no megabytes of base64)', async () => {
    const { svc } = await service({ maxResultBytes: 1024, defaultWindow: { contextTokens: 100_000, maxOutputTokens: 100 } });
    const value = { content: [{ type: 'image', mimeType: 'image/png', bytes: 3000, dataUrl: `data:image/png;base64,${'A'.repeat(4000)}` }] };
    const card = { invocationId: 'i2', bundleId: 'b', slug: 'picture', version: '1', displayName: 'Picture', args: {}, status: 'ok' as const, source: 'model' as const };
    const gated = await svc.gateCard(card, { conversationId: 'c1', tool: { id: 't1', slug: 'picture', outputSchema: {} }, args: {}, value, usedTokens: 100 });
    expect(gated.stored).toBeDefined();
    // A preview stays, not the image.
    expect(JSON.stringify(gated.value ?? '')).not.toContain('A'.repeat(4000));
  });

  it('never passes uncounted what the byte limit refuses', () => {
    const w = { contextTokens: 10_000, maxOutputTokens: 1_000 };
    expect(fitsUncounted(100, 99, w)).toBe(false);
    expect(fitsUncounted(9_000, 100_000, w)).toBe(true);
    expect(fitsUncounted(9_001, 100_000, w)).toBe(false);
    expect(fitsUncounted(8_000, 100_000, w, 1_500)).toBe(false);
    expect(fitsUncounted(50, 100, { contextTokens: 0, maxOutputTokens: 0 })).toBe(true);
  });
});
