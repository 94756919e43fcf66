/** The private in-memory index a host falls back to when the index file cannot be used. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { isIndexFileFailure, ToolIndex } from './tool-index';

const tempDir = useTempDirs();

describe('ToolIndex.open with privateFallback', () => {
  it('a file that cannot be opened gives a private index that asks for a rebuild and says why; without the option it throws', async () => {
    const dir = await tempDir();
    const blocked = path.join(dir, 'tools.sqlite');
    await fs.mkdir(blocked); // a folder where the file should be: SQLite cannot open it
    expect(() => ToolIndex.open(blocked)).toThrow(/cannot be opened/);
    const index = ToolIndex.open(blocked, { privateFallback: true, docFormat: 'f1' });
    try {
      expect(index.privateReason).toMatch(/cannot be opened/);
      expect(index.needsRebuild).toBe(true);
      index.rebuild([
        { id: '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35', bundleId: '0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f36', slug: 'echo', version: '1', displayName: 'Echo', description: '', tags: [], enabled: true, modifiedAt: '2026-01-01T00:00:00.000Z' },
      ]);
      expect(index.search({ q: 'echo' }).items.map((h) => h.id)).toEqual(['0190c2a4-7b1e-7c3d-9a4f-2b6e8d0c1f35']);
      expect((await fs.stat(blocked)).isDirectory()).toBe(true);
    } finally {
      index.close();
    }
  });

  it('tells I/O errors and corruption from other SQLite errors', () => {
    for (const code of ['SQLITE_IOERR', 'SQLITE_IOERR_SHORT_READ', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CANTOPEN']) expect(isIndexFileFailure({ code })).toBe(true);
    for (const code of ['SQLITE_BUSY', 'SQLITE_CONSTRAINT', undefined]) expect(isIndexFileFailure({ code })).toBe(false);
    expect(isIndexFileFailure(new Error('x'))).toBe(false);
  });
});
