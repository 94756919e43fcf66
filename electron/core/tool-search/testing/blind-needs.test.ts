/**
 * The blind needs (./blind-needs.json) are frozen input: every target is a tool of the realistic
 * registry, no need is there twice, and each service has its share. (The figures measured on them
 * are in ../README.md; they are reported, never tuned on.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRealRegistry } from './real-registry';

interface BlindNeed {
  need: string;
  tool: string;
  alsoAccept?: string[];
}

const set = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'blind-needs.json'), 'utf8')) as { needs: BlindNeed[] };

describe('the blind needs', () => {
  it('name tools of the realistic registry, once each need, twenty per service', () => {
    const keys = new Set(readRealRegistry().bundles.flatMap((b) => b.tools.map((t) => `${b.slug}/${t.slug}`)));
    expect(set.needs).toHaveLength(160);
    const unknown = set.needs.flatMap((n) => [n.tool, ...(n.alsoAccept ?? [])]).filter((k) => !keys.has(k));
    expect(unknown).toEqual([]);
    expect(new Set(set.needs.map((n) => n.need.trim().toLowerCase())).size).toBe(set.needs.length);
    const perService = new Map<string, number>();
    for (const n of set.needs) perService.set(n.tool.split('/')[0]!, (perService.get(n.tool.split('/')[0]!) ?? 0) + 1);
    expect([...perService.values()]).toEqual(Array(8).fill(20));
  });
});
