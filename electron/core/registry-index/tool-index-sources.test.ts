import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolIndex } from './tool-index';
import type { IndexedTool } from './types';

let dir: string;
const opened: ToolIndex[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-search-test-'));
});
afterEach(() => {
  for (const ix of opened.splice(0)) ix.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(file: string, docFormat?: string): ToolIndex {
  const ix = ToolIndex.open(file, { docFormat });
  opened.push(ix);
  return ix;
}

const tool = (n: number, over: Partial<IndexedTool> = {}): IndexedTool => ({
  id: `t${n}`,
  bundleId: 'b',
  slug: `tool-${n}`,
  version: '1',
  displayName: `Tool ${n}`,
  description: '',
  tags: [],
  enabled: n % 2 === 0,
  modifiedAt: '2026-01-01T00:00:00.000Z',
  source: { path: `/data/t${n}.json`, mtimeMs: 1_700_000_000_000.5 + n, size: 10 + n },
  doc: `{"n":${n},"text":"é😀"}`,
  ...over,
});

describe('ToolIndex.sources()', () => {
  it('gives each tool that has both a fingerprint and a doc, with its enabled state, across chunks', () => {
    const ix = open(':memory:');
    const tools = Array.from({ length: 1203 }, (_, i) => (i === 7 ? tool(i, { doc: undefined }) : i === 8 ? tool(i, { source: undefined }) : tool(i)));
    ix.rebuild(tools);
    const got = [...ix.sources()];
    expect(got).toHaveLength(1201);
    const byId = new Map(got.map((s) => [s.id, s]));
    expect(byId.get('t3')).toEqual({ path: '/data/t3.json', mtimeMs: 1_700_000_000_003.5, size: 13, id: 't3', enabled: false, doc: '{"n":3,"text":"é😀"}' });
    expect(byId.has('t7')).toBe(false);
    expect(byId.has('t8')).toBe(false);
    ix.upsert(tool(3, { enabled: true, doc: 'changed' }));
    expect([...ix.sources()].find((s) => s.id === 't3')).toMatchObject({ enabled: true, doc: 'changed' });
  });
});

describe('ToolIndex.open({ docFormat })', () => {
  it('asks for a rebuild until a rebuild under that format, and again for another format', async () => {
    const file = path.join(dir, 'ix.db');
    const a = open(file, 'f1');
    expect(a.needsRebuild).toBe(true); // a new file holds no docs of f1
    await a.rebuildInBatches([tool(0), tool(1)]);
    expect(a.needsRebuild).toBe(false);
    a.close();
    expect(open(file, 'f1').needsRebuild).toBe(false);
    expect(open(file).needsRebuild).toBe(false); // no format given: no check
    const c = open(file, 'f2');
    expect(c.needsRebuild).toBe(true);
    c.rebuild([tool(2)]);
    c.close();
    expect(open(file, 'f2').needsRebuild).toBe(false);
    expect(open(file, 'f1').needsRebuild).toBe(true);
  });
});
