/**
 * The blind needs (./blind-needs.json) are frozen input: every target is a tool of the realistic
 * registry, no need is there twice, and each service has its share. (The figures measured on them
 * are in ../README.md; they are reported, never tuned on.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realRegistry } from './measure';
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

/**
 * A floor under the figures measured on them after the ranking last changed (top-5 81.9%, top-1
 * 53.8%): a change that loses needs here is a regression. Raised as the ranking improves; the
 * set itself is never tuned on (its misses are not read while changing the ranking).
 */
const BLIND_FLOOR_TOP5 = 0.8;
const BLIND_FLOOR_TOP1 = 0.52;

// 160 searches over 500 tools: the timeout is a hang guard for a loaded machine, not a time bound.
describe('tool search on the blind needs', { timeout: 120_000 }, () => {
  it('keeps the right tool in the top 5 (and first) above the floors', async () => {
    const reg = realRegistry();
    let top1 = 0;
    let top5 = 0;
    for (const n of set.needs) {
      const s = reg.searchSet();
      await s.deferred!.prepare();
      const names = s.deferred!.search({ query: n.need, limit: 5 }).tools.map((t) => t.name);
      const ok = [n.tool, ...(n.alsoAccept ?? [])].map((k) => reg.nameOf(s, k));
      if (ok.includes(names[0]!)) top1++;
      if (names.some((x) => ok.includes(x))) top5++;
    }
    const figures = `top-5 ${top5}/${set.needs.length}, top-1 ${top1}/${set.needs.length}`;
    expect(top5 / set.needs.length, figures).toBeGreaterThanOrEqual(BLIND_FLOOR_TOP5);
    expect(top1 / set.needs.length, figures).toBeGreaterThanOrEqual(BLIND_FLOOR_TOP1);
  });
});

describe('the tuning needs', () => {
  const tuning = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'tuning-needs.json'), 'utf8')) as { needs: BlindNeed[] };

  it('name tools of the realistic registry, once each need, and none of them is a blind need', () => {
    const keys = new Set(readRealRegistry().bundles.flatMap((b) => b.tools.map((t) => `${b.slug}/${t.slug}`)));
    expect(tuning.needs).toHaveLength(179);
    expect(tuning.needs.flatMap((n) => [n.tool, ...(n.alsoAccept ?? [])]).filter((k) => !keys.has(k))).toEqual([]);
    const blind = new Set(set.needs.map((n) => n.need.trim().toLowerCase()));
    expect(tuning.needs.filter((n) => blind.has(n.need.trim().toLowerCase()))).toEqual([]);
    expect(new Set(tuning.needs.map((n) => n.need.trim().toLowerCase())).size).toBe(tuning.needs.length);
  });
});
