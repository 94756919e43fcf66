import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { documentBlocks } from './document-blocks';

const tempDir = useTempDirs();

async function workspace() {
  const dir = await tempDir();
  await fs.mkdir(path.join(dir, 'data'));
  await fs.writeFile(path.join(dir, 'data', 'small.md'), '# Small\nfour words here');
  await fs.writeFile(path.join(dir, 'data', 'big.csv'), 'a,b\n'.repeat(5000));
  await fs.writeFile(path.join(dir, 'chart.png'), Buffer.from([0x89, 0x50, 0, 1]));
  const stored: { path: string; bytes: number }[] = [];
  const deps = {
    workspaceDir: dir,
    countTokens: (t: string) => Math.ceil(Buffer.byteLength(t) / 4),
    storeOversized: async (text: string, p: string) => {
      stored.push({ path: p, bytes: Buffer.byteLength(text) });
      return `Tool output is too large (${Buffer.byteLength(text)} bytes). Call tool_output(handle = "h-1")`;
    },
  };
  return { dir, deps, stored };
}

describe('documents as content blocks', () => {
  it('loads text that fits whole, stores what does not behind a handle, never cuts', async () => {
    const { deps, stored } = await workspace();
    const r = await documentBlocks(['data/small.md', 'data/big.csv'], 1000, deps);
    expect(r.documents.map((d) => [d.path, d.how])).toEqual([
      ['data/small.md', 'inline'],
      ['data/big.csv', 'handle'],
    ]);
    expect(r.text).toContain('<document path="data/small.md" type="text/markdown" tokens="6">\n# Small\nfour words here\n</document>');
    expect(r.text).toContain('<document path="data/big.csv" type="text/csv" tokens="5000" stored="handle">\nTool output is too large (20000 bytes). Call tool_output(handle = "h-1")\n</document>');
    expect(stored).toEqual([{ path: 'data/big.csv', bytes: 20000 }]);
    expect(r.text).not.toContain('a,b\na,b');
  });

  it('the budget is shared: the first that no longer fits goes as a handle', async () => {
    const { deps } = await workspace();
    const r = await documentBlocks(['data/small.md', 'data/small.md'.replace('small', 'small')], 8, deps);
    expect(r.documents.map((d) => d.how)).toEqual(['inline', 'handle']);
  });

  it('binary, missing and outside paths are named, not loaded', async () => {
    const { dir, deps } = await workspace();
    await fs.symlink('/etc/passwd', path.join(dir, 'escape.txt'));
    const r = await documentBlocks(['chart.png', 'nope.md', '../secret.md', 'escape.txt'], 1000, deps);
    expect(r.documents.map((d) => [d.path, d.how])).toEqual([
      ['chart.png', 'binary'],
      ['nope.md', 'missing'],
      ['../secret.md', 'refused'],
      ['escape.txt', 'refused'],
    ]);
    expect(r.text).toContain('<document path="chart.png" type="image/png" bytes="4" note="binary: not loaded as text"/>');
    expect(r.text).toContain('<document path="nope.md" error="not found in the workspace"/>');
    expect(r.text).not.toContain('root:');
  });

  it('no documents: no text', async () => {
    const { deps } = await workspace();
    expect(await documentBlocks([], 100, deps)).toEqual({ text: '', documents: [] });
  });
});
