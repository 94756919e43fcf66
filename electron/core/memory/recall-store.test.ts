/**
 * Recall entries: immutable, searched with FTS5 whose query is escaped (hostile punctuation
 * is never a syntax error), scored, limited, narrowed by tags and time, kept per memory.
 */
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp-dir';
import { openTestMemory } from './testing/memory-kit';

const OWNER = 'conversation:c1';

describe('recall', () => {
  const tempDir = useTempDirs();

  async function seeded() {
    const m = openTestMemory(await tempDir());
    m.recall.insert(OWNER, 'The deploy key rotates on Fridays: ask ops-team before "rotating" it.', { tags: ['ops'] });
    m.recall.insert(OWNER, 'NEAR the office there is a cafe (open 8-17) called Stars*', { tags: ['places'] });
    m.recall.insert(OWNER, 'deploy deploy deploy: the deploy script lives in tools/deploy.sh', { tags: ['ops', 'scripts'] });
    m.recall.insert('conversation:other', 'deploy notes of another conversation', {});
    return m;
  }

  it.each([
    ['"unbalanced quote', 0],
    ['deploy"', 2],
    ['Stars*', 1],
    ['*', 0],
    ['-deploy', 2],
    ['ops-team', 1],
    ['key:rotates', 1],
    ['content: deploy', 0],
    ['(deploy', 2],
    ['deploy) OR (', 0],
    ['NEAR(deploy key)', 0],
    ['NEAR office', 1],
    ['deploy AND NOT key', 0],
    ['^deploy', 2],
    ['{deploy}', 2],
    ['"" \u0000 \\', 0],
  ])('the query %j is text, never syntax (%i found)', async (query, found) => {
    const m = await seeded();
    const hits = m.recall.search({ owner: OWNER, query });
    expect(hits).toHaveLength(found);
    m.close();
  });

  it('ranks by relevance with a score, best first, and honours limit', async () => {
    const m = await seeded();
    const hits = m.recall.search({ owner: OWNER, query: 'deploy' });
    expect(hits.map((h) => h.content.slice(0, 13))).toEqual(['deploy deploy', 'The deploy ke']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[1]!.score).toBeGreaterThan(0);
    expect(m.recall.search({ owner: OWNER, query: 'deploy', limit: 1 })).toHaveLength(1);
    m.close();
  });

  it('narrows by tags (all must match) and by time', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const m = openTestMemory(await tempDir(), { now: () => new Date((t += 86_400_000)) });
    m.recall.insert(OWNER, 'release one shipped', { tags: ['release'] }); // Jan 2
    m.recall.insert(OWNER, 'release two shipped', { tags: ['release', 'big'] }); // Jan 3
    m.recall.insert(OWNER, 'release three shipped', {}); // Jan 4
    const q = (extra: object) => m.recall.search({ owner: OWNER, query: 'release shipped', ...extra }).map((h) => h.content.split(' ')[1]);
    expect(q({ tags: ['release'] }).sort()).toEqual(['one', 'two']);
    expect(q({ tags: ['release', 'big'] })).toEqual(['two']);
    expect(q({ since: '2026-01-03T00:00:00Z' }).sort()).toEqual(['three', 'two']);
    expect(q({ until: '2026-01-02T23:59:59Z' })).toEqual(['one']);
    expect(q({ until: '2026-01-03T00:00:00Z' }).sort()).toEqual(['one', 'two']);
    expect(q({ since: '2026-01-02T12:00:00+01:00', until: '2026-01-03T23:00:00Z' })).toEqual(['two']);
    m.close();
  });

  it('keeps entries per memory and refuses empty or oversized ones; there is no way to change one', async () => {
    const m = await seeded();
    expect(m.recall.search({ owner: 'conversation:other', query: 'deploy' })).toHaveLength(1);
    expect(() => m.recall.insert(OWNER, '   ')).toThrow('recall insert needs content: the text to keep');
    expect(() => m.recall.insert(OWNER, 'x'.repeat(100_001))).toThrow('a recall entry holds at most 100000 characters; this one has 100001');
    expect(() => m.recall.insert(OWNER, 'x', { tags: 'ops' })).toThrow('metadata.tags is a list of short strings');
    // No entry can be changed or deleted one by one: only all of a memory's entries go, with its deleted conversation.
    expect(Object.getOwnPropertyNames(Object.getPrototypeOf(m.recall)).filter((n) => /update|delete|remove|edit/i.test(n))).toEqual(['removeOwner']);
    m.close();
  });
});

describe('recall search when other memories hold the best matches', () => {
  const tempDir = useTempDirs();

  it("finds this memory's entries past the index's best, in score order", async () => {
    const m = openTestMemory(await tempDir());
    m.recall.insertMany('conversation:other', Array.from({ length: 30 }, () => ({ content: 'deploy deploy deploy' })));
    m.recall.insert(OWNER, 'a long note that mentions deploy once among many other words here');
    m.recall.insert(OWNER, 'deploy deploy notes');
    const hits = m.recall.search({ owner: OWNER, query: 'deploy', limit: 2 });
    expect(hits.map((h) => h.content)).toEqual(['deploy deploy notes', 'a long note that mentions deploy once among many other words here']);
    expect(m.recall.search({ owner: OWNER, query: 'deploy', limit: 1 }).map((h) => h.content)).toEqual(['deploy deploy notes']);
    m.close();
  });
});

describe('recall search input', () => {
  const tempDir = useTempDirs();

  it('refuses a bad limit, tags or time with the field named', async () => {
    const m = openTestMemory(await tempDir());
    expect(() => m.recall.search({ owner: OWNER, query: 'x', limit: 0 })).toThrow('limit is an integer from 1 to 200');
    expect(() => m.recall.search({ owner: OWNER, query: 'x', since: 'yesterday' })).toThrow('since is an ISO 8601 time such as 2026-01-31T12:00:00Z');
    expect(() => m.recall.search({ owner: OWNER, query: 'x', tags: [''] })).toThrow('tags is a list of at most 20 tags of 1 to 100 characters');
    expect(() => m.recall.search({ owner: 'nobody', query: 'x' })).toThrow('owner is conversation:<id> or agent:<name>');
    m.close();
  });
});
