import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToolIndex } from '../registry-index/tool-index';
import type { IndexedTool } from '../registry-index/types';
import { indexedFiles, syncIndex } from './index-sync';

const opened: ToolIndex[] = [];
afterEach(() => {
  for (const ix of opened.splice(0)) ix.close();
  vi.restoreAllMocks();
});

function tool(n: number, over: Partial<IndexedTool> = {}): IndexedTool {
  const t: IndexedTool = {
    id: `t${n}`,
    bundleId: 'b',
    slug: `tool-${n}`,
    version: '1',
    displayName: `Tool ${n}`,
    description: 'does things',
    tags: ['x'],
    enabled: true,
    modifiedAt: '2026-01-01T00:00:00.000Z',
    source: { path: `/data/t${n}.json`, mtimeMs: 1_700_000_000_000.25 + n, size: 100 + n },
  };
  return { ...t, doc: JSON.stringify({ id: t.id, n }), ...over };
}

function indexOf(tools: IndexedTool[]): ToolIndex {
  const ix = ToolIndex.open(':memory:');
  opened.push(ix);
  ix.rebuild(tools);
  return ix;
}

describe('syncIndex with the index\'s files at hand', () => {
  it('skips every tool whose fingerprint, doc and enabled state the index already has, without reading its row', async () => {
    const tools = Array.from({ length: 50 }, (_, i) => tool(i));
    const ix = indexOf(tools);
    const known = indexedFiles(ix);
    expect(known.size).toBe(50);
    const get = vi.spyOn(ix, 'get');
    const ids = vi.spyOn(ix, 'ids');
    // The same tools as the store would load them from the cache: same doc strings.
    const wanted = tools.map((t) => ({ ...t, doc: known.get(t.source!.path)!.doc }));
    expect(await syncIndex(ix, wanted, known)).toEqual({ upserted: 0, removed: 0, rebuilt: false });
    expect(get).not.toHaveBeenCalled();
    // It holds exactly the tools wanted: nothing to look for to remove.
    expect(ids).not.toHaveBeenCalled();
  });

  it('upserts what differs: enabled, the file, the doc, a fingerprint newly settled; removes what is gone', async () => {
    const noSource = { ...tool(4), source: undefined, doc: undefined };
    const ix = indexOf([tool(0), tool(1), tool(2), tool(3), noSource, tool(5)]);
    const known = indexedFiles(ix);
    expect(known.size).toBe(5);
    const wanted = [
      tool(0),
      tool(1, { enabled: false }),
      tool(2, { source: { path: '/data/t2.json', mtimeMs: 5, size: 102 }, displayName: 'Changed' }),
      tool(3, { doc: '{"other":true}' }),
      tool(4), // its file settled since it was indexed
    ];
    expect(await syncIndex(ix, wanted, known)).toEqual({ upserted: 4, removed: 1, rebuilt: false });
    for (const t of wanted) expect(ix.get(t.id)).toEqual(t);
    expect(ix.get('t5')).toBeUndefined();
    expect(await syncIndex(ix, wanted, indexedFiles(ix))).toEqual({ upserted: 0, removed: 0, rebuilt: false });
  });

  it('removes what is gone when as many new tools came in its place', async () => {
    const ix = indexOf([tool(0), tool(1), tool(2)]);
    const wanted = [tool(0), tool(3), tool(4)];
    expect(await syncIndex(ix, wanted, indexedFiles(ix))).toEqual({ upserted: 2, removed: 2, rebuilt: false });
    expect(ix.ids().sort()).toEqual(['t0', 't3', 't4']);
  });

  it('without the files at hand compares each row, source and doc included', async () => {
    const ix = indexOf([tool(0), tool(1)]);
    expect(await syncIndex(ix, [tool(0), tool(1, { doc: 'new' })])).toEqual({ upserted: 1, removed: 0, rebuilt: false });
    expect(ix.get('t1')?.doc).toBe('new');
  });
});
