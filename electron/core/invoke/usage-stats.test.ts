import Database from 'better-sqlite3';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../../shared/model/invocation';
import { lastDays } from '../lib/day-window';
import { useTempDirs } from '../testing/temp-dir';
import { InvocationLog } from './invocation-log';
import { DAILY_SQL, nearestRank, usageStats, usageSummaries } from './usage-stats';

const tempDir = useTempDirs();
const NOW = new Date('2026-11-24T12:00:00Z');
const ERRORS: Record<number, string> = { 2: 'VALIDATION_FAILED', 4: 'VALIDATION_FAILED', 6: 'VALIDATION_FAILED', 8: 'TIMEOUT', 10: 'TIMEOUT', 12: 'UNAVAILABLE' };

function record(toolId: string, i: number, startedAt: string, over: Partial<InvocationRecord> = {}): InvocationRecord {
  const code = toolId === 'tool-a' ? ERRORS[i] : undefined;
  return {
    id: `${toolId}-${i}`,
    toolId,
    bundleId: 'b',
    slug: toolId,
    version: '1',
    source: 'api',
    args: {},
    ...(code ? { ok: false, error: { code, message: 'no' } } : { ok: true, value: i === 20 ? 'é'.repeat(20) : 'a'.repeat(i) }),
    startedAt,
    durationMs: i === 20 ? 5000 : i,
    attempts: 1,
    ...over,
  } as InvocationRecord;
}

/**
 * tool-a: 20 calls, call i taking i ms (call 20: 5000 ms), i % 3 days before today (UTC);
 * calls 2, 4, 6 fail with VALIDATION_FAILED, 8 and 10 with TIMEOUT, 12 with UNAVAILABLE. An ok
 * call i answers 'a' × i (i + 2 bytes of JSON), call 20 'é' × 20 (42 bytes). Plus one call
 * the day before the window and one of another tool.
 */
function seeded(): InvocationLog {
  const log = InvocationLog.open(':memory:');
  for (let i = 1; i <= 20; i++) {
    const day = new Date(Date.UTC(2026, 10, 24 - (i % 3), 10, i));
    log.add(record('tool-a', i, day.toISOString()));
  }
  log.add(record('tool-a', 99, '2026-10-25T23:59:59.999Z', { ok: false, error: { code: 'CONFLICT', message: 'old' }, value: undefined }));
  log.add(record('tool-b', 1, '2026-11-24T09:00:00.000Z'));
  return log;
}

describe('usage figures from the invocation log', () => {
  it('nearest rank: the value at rank ceil(p/100 × n)', () => {
    expect([nearestRank(50, 20), nearestRank(95, 20), nearestRank(50, 1), nearestRank(95, 14), nearestRank(50, 14)]).toEqual([10, 19, 1, 14, 7]);
  });

  it("answers a tool's calls, error rate, p50/p95, result sizes, histogram, errors by code and days, exactly", () => {
    const log = seeded();
    const days = lastDays(NOW, 'UTC', 30);
    const s = usageStats(log.flushedDb(), 'tool-a', days, 'UTC');
    expect(s).toMatchObject({
      toolId: 'tool-a',
      timeZone: 'UTC',
      calls: 20,
      errors: 6,
      errorRate: 0.3,
      // 1..19 and 5000 ms: rank 10 is 10 ms, rank 19 is 19 ms.
      latencyMs: { p50: 10, p95: 19, max: 5000 },
      // 14 ok results: 3 5 7 9 11 13 15 16 17 18 19 20 21 42 bytes; rank 7 is 15.
      resultBytes: { median: 15, max: 42 },
      errorsByCode: [
        { code: 'VALIDATION_FAILED', count: 3 },
        { code: 'TIMEOUT', count: 2 },
        { code: 'UNAVAILABLE', count: 1 },
      ],
      otherErrors: 0,
    });
    expect(s.latencyHistogram).toEqual([
      { fromMs: 0, toMs: 10, count: 9 },
      { fromMs: 10, toMs: 30, count: 10 },
      { fromMs: 30, toMs: 100, count: 0 },
      { fromMs: 100, toMs: 300, count: 0 },
      { fromMs: 300, toMs: 1000, count: 0 },
      { fromMs: 1000, toMs: 3000, count: 0 },
      { fromMs: 3000, toMs: 10000, count: 1 },
      { fromMs: 10000, count: 0 },
    ]);
    expect(s.days).toHaveLength(30);
    expect(s.days[0]).toEqual({ date: '2026-10-26', calls: 0, errors: 0 });
    expect(s.days.slice(-3)).toEqual([
      { date: '2026-11-22', calls: 7, errors: 2 },
      { date: '2026-11-23', calls: 7, errors: 2 },
      { date: '2026-11-24', calls: 6, errors: 2 },
    ]);
    expect(s.days.slice(0, 27).every((d) => d.calls === 0)).toBe(true);
    log.close();
  });

  it('names the top five codes and counts the rest together; a tool never called has zeros and no percentiles', () => {
    const log = InvocationLog.open(':memory:');
    const codes = ['NOT_FOUND', 'TIMEOUT', 'NOT_FOUND', 'CONFLICT', 'TIMEOUT', 'CONFLICT', 'NOT_FOUND', 'INTERNAL', 'FORBIDDEN', 'CANCELLED', 'UNAUTHORIZED'] as const;
    codes.forEach((code, i) => log.add(record('tool-c', i, '2026-11-24T01:00:00.000Z', { ok: false, error: { code, message: 'x' }, value: undefined })));
    const s = usageStats(log.flushedDb(), 'tool-c', lastDays(NOW, 'UTC', 30), 'UTC');
    expect(s.errorsByCode).toEqual([
      { code: 'NOT_FOUND', count: 3 },
      { code: 'CONFLICT', count: 2 },
      { code: 'TIMEOUT', count: 2 },
      { code: 'CANCELLED', count: 1 },
      { code: 'FORBIDDEN', count: 1 },
    ]);
    expect(s.otherErrors).toBe(2);
    expect(s.resultBytes).toBeUndefined();
    const none = usageStats(log.flushedDb(), 'nobody', lastDays(NOW, 'UTC', 30), 'UTC');
    expect(none).toMatchObject({ calls: 0, errors: 0, errorRate: 0, errorsByCode: [], otherErrors: 0 });
    expect(none.latencyMs).toBeUndefined();
    log.close();
  });

  it('summarises many tools in one query, per day in the zone asked', () => {
    const log = seeded();
    const [a, b, unknown] = usageSummaries(log.flushedDb(), ['tool-a', 'tool-b', 'nobody', 'tool-a'], lastDays(NOW, 'UTC', 30));
    expect([a!.calls, a!.errors, b!.calls, b!.errors, unknown!.calls]).toEqual([20, 6, 1, 0, 0]);
    expect(a!.days.map((d) => d.calls).slice(-3)).toEqual([7, 7, 6]);

    // 03:00 and 06:00 UTC on the 24th: the 24th in UTC, the 23rd and 24th in New York (UTC-5).
    const tz = InvocationLog.open(':memory:');
    tz.add(record('tool-z', 1, '2026-11-24T03:00:00.000Z'));
    tz.add(record('tool-z', 2, '2026-11-24T06:00:00.000Z'));
    const utc = usageSummaries(tz.flushedDb(), ['tool-z'], lastDays(NOW, 'UTC', 2))[0]!;
    const ny = usageSummaries(tz.flushedDb(), ['tool-z'], lastDays(NOW, 'America/New_York', 2))[0]!;
    expect(utc.days).toEqual([
      { date: '2026-11-23', calls: 0, errors: 0 },
      { date: '2026-11-24', calls: 2, errors: 0 },
    ]);
    expect(ny.days).toEqual([
      { date: '2026-11-23', calls: 1, errors: 0 },
      { date: '2026-11-24', calls: 1, errors: 0 },
    ]);
    log.close();
    tz.close();
  });

  it('reads the figures through the index, never the table', () => {
    const log = seeded();
    const db = log.flushedDb();
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ tool: 'tool-a', from: '', to: 'z' }) as { detail: string }[]).map((r) => r.detail).join('\n');
    const daily = (db.prepare(`EXPLAIN QUERY PLAN ${DAILY_SQL}`).all({ days: '[]', tools: '[]' }) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(daily).toMatch(/SEARCH inv USING COVERING INDEX invocations_usage \(tool_id=\? AND started_at>\? AND started_at<\?\)/);
    expect(plan("SELECT count(*), max(result_bytes) FROM invocations WHERE tool_id = @tool AND started_at >= @from AND started_at < @to")).toMatch(/COVERING INDEX invocations_usage/);
    log.close();
  });

  it('moves a log of schema 1 on: its records get their figures from their JSON', async () => {
    const file = path.join(await tempDir(), 'invocations.sqlite');
    const old = new Database(file);
    old.exec(`CREATE TABLE invocations (id TEXT PRIMARY KEY, tool_id TEXT NOT NULL, started_at TEXT NOT NULL, ok INTEGER NOT NULL, record TEXT NOT NULL);
      CREATE INDEX invocations_by_tool ON invocations (tool_id, started_at);
      CREATE INDEX invocations_by_time ON invocations (started_at);`);
    const insert = old.prepare('INSERT INTO invocations VALUES (?, ?, ?, ?, ?)');
    for (const r of [record('tool-a', 1, '2026-11-24T01:00:00.000Z'), record('tool-a', 2, '2026-11-24T02:00:00.000Z'), record('tool-a', 20, '2026-11-24T03:00:00.000Z')]) {
      insert.run(r.id, r.toolId, r.startedAt, r.ok ? 1 : 0, JSON.stringify(r));
    }
    // A damaged record does not stop the migration (nor cost the others).
    insert.run('damaged', 'tool-b', '2026-11-24T04:00:00.000Z', 1, '{"not json');
    old.pragma('user_version = 1');
    old.close();
    const log = InvocationLog.open(file);
    const s = usageStats(log.flushedDb(), 'tool-a', lastDays(NOW, 'UTC', 30), 'UTC');
    expect(s).toMatchObject({ calls: 3, errors: 1, latencyMs: { p50: 2, p95: 5000 }, resultBytes: { median: 3, max: 42 }, errorsByCode: [{ code: 'VALIDATION_FAILED', count: 1 }] });
    expect(log.list({ toolId: 'tool-a' })).toHaveLength(3);
    log.close();
  });

  it('a log it cannot use (a newer Toolsmith’s) is moved aside, never deleted', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'invocations.sqlite');
    const newer = new Database(file);
    newer.exec('CREATE TABLE invocations (id TEXT PRIMARY KEY, later TEXT); INSERT INTO invocations VALUES (\'kept\', \'x\');');
    newer.pragma('user_version = 99');
    newer.close();
    const log = InvocationLog.open(file);
    expect(log.list({})).toEqual([]);
    log.close();
    const aside = (await fs.readdir(dir)).filter((f) => f.startsWith('invocations.sqlite.unreadable-') && !f.endsWith('-wal') && !f.endsWith('-shm'));
    expect(aside).toHaveLength(1);
    const back = new Database(path.join(dir, aside[0]!), { readonly: true });
    expect(back.prepare('SELECT id FROM invocations').all()).toEqual([{ id: 'kept' }]);
    back.close();
  });
});
