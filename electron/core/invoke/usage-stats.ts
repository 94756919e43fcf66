/**
 * Usage figures from the invocation log, aggregated in SQL over the index
 * `invocations_usage (tool_id, started_at, ok, duration_ms, result_bytes, error_code)`: every
 * query reads one range of it per tool (and per day), never the records' JSON.
 */
import type Database from 'better-sqlite3';
import { LATENCY_BOUNDS_MS, TOP_ERROR_CODES, type ToolUsageStats, type ToolUsageSummary, type UsageDay } from '../../../shared/model/usage';
import type { Day } from '../lib/day-window';

/** Calls and errors per tool and day: one range of the index per (tool, day). */
export const DAILY_SQL = `
  WITH d(i, lo, hi) AS (SELECT key, json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@days)),
       t(id) AS (SELECT DISTINCT value FROM json_each(@tools))
  SELECT t.id AS toolId, d.i AS day, count(*) AS calls, coalesce(sum(inv.ok = 0), 0) AS errors
  FROM t CROSS JOIN d CROSS JOIN invocations AS inv
  WHERE inv.tool_id = t.id AND inv.started_at >= d.lo AND inv.started_at < d.hi
  GROUP BY t.id, d.i`;

const IN_WINDOW = 'tool_id = @tool AND started_at >= @from AND started_at < @to';

const TOTALS_SQL = `SELECT count(*) AS calls, coalesce(sum(ok = 0), 0) AS errors, count(duration_ms) AS timed, max(duration_ms) AS maxMs,
  count(CASE WHEN ok THEN result_bytes END) AS sized, max(CASE WHEN ok THEN result_bytes END) AS maxBytes
  FROM invocations WHERE ${IN_WINDOW}`;
const LATENCY_AT_SQL = `SELECT duration_ms AS v FROM invocations WHERE ${IN_WINDOW} AND duration_ms IS NOT NULL ORDER BY duration_ms LIMIT 1 OFFSET @offset`;
const BYTES_AT_SQL = `SELECT result_bytes AS v FROM invocations WHERE ${IN_WINDOW} AND ok AND result_bytes IS NOT NULL ORDER BY result_bytes LIMIT 1 OFFSET @offset`;
const BUCKET_SQL = `SELECT CASE ${LATENCY_BOUNDS_MS.map((b, i) => `WHEN duration_ms < ${b} THEN ${i}`).join(' ')} ELSE ${LATENCY_BOUNDS_MS.length} END AS bucket, count(*) AS n
  FROM invocations WHERE ${IN_WINDOW} AND duration_ms IS NOT NULL GROUP BY bucket`;
const CODES_SQL = `SELECT error_code AS code, count(*) AS n FROM invocations WHERE ${IN_WINDOW} AND NOT ok GROUP BY error_code ORDER BY n DESC, code`;

/** The rank (1-based) of the p-th percentile of n values by the nearest-rank method. */
export function nearestRank(p: number, n: number): number {
  return Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
}

function windowOf(days: readonly Day[]): [string, string] {
  return [days[0]!.start, days.at(-1)!.end];
}

/** Calls and errors per day for each tool (tools in the order asked, each once; an unknown id has zeros). */
export function usageSummaries(db: Database.Database, toolIds: readonly string[], days: readonly Day[]): ToolUsageSummary[] {
  const ids = [...new Set(toolIds)];
  const byTool = new Map<string, UsageDay[]>(ids.map((id) => [id, days.map((d) => ({ date: d.date, calls: 0, errors: 0 }))]));
  if (ids.length && days.length) {
    const rows = db.prepare(DAILY_SQL).all({ days: JSON.stringify(days.map((d) => [d.start, d.end])), tools: JSON.stringify(ids) }) as { toolId: string; day: number; calls: number; errors: number }[];
    for (const r of rows) {
      const day = byTool.get(r.toolId)![r.day]!;
      day.calls = r.calls;
      day.errors = r.errors;
    }
  }
  return ids.map((toolId) => {
    const perDay = byTool.get(toolId)!;
    let calls = 0;
    let errors = 0;
    for (const d of perDay) {
      calls += d.calls;
      errors += d.errors;
    }
    return { toolId, calls, errors, days: perDay };
  });
}

/** A tool's figures over the days given. */
export function usageStats(db: Database.Database, toolId: string, days: readonly Day[], timeZone: string): ToolUsageStats {
  const [from, to] = windowOf(days);
  const range = { tool: toolId, from, to };
  const totals = db.prepare(TOTALS_SQL).get(range) as { calls: number; errors: number; timed: number; maxMs: number | null; sized: number; maxBytes: number | null };
  const at = (sql: string, n: number, p: number) => (db.prepare(sql).get({ ...range, offset: nearestRank(p, n) - 1 }) as { v: number }).v;

  const counts = new Map((db.prepare(BUCKET_SQL).all(range) as { bucket: number; n: number }[]).map((r) => [r.bucket, r.n]));
  const latencyHistogram = [0, ...LATENCY_BOUNDS_MS].map((fromMs, i) => ({
    fromMs,
    ...(i < LATENCY_BOUNDS_MS.length ? { toMs: LATENCY_BOUNDS_MS[i] } : {}),
    count: counts.get(i) ?? 0,
  }));

  const codes = db.prepare(CODES_SQL).all(range) as { code: string; n: number }[];
  const errorsByCode = codes.slice(0, TOP_ERROR_CODES).map((c) => ({ code: c.code, count: c.n }));
  const otherErrors = codes.slice(TOP_ERROR_CODES).reduce((sum, c) => sum + c.n, 0);

  return {
    toolId,
    timeZone,
    calls: totals.calls,
    errors: totals.errors,
    errorRate: totals.calls ? totals.errors / totals.calls : 0,
    ...(totals.timed ? { latencyMs: { p50: at(LATENCY_AT_SQL, totals.timed, 50), p95: at(LATENCY_AT_SQL, totals.timed, 95), max: totals.maxMs! } } : {}),
    ...(totals.sized ? { resultBytes: { median: at(BYTES_AT_SQL, totals.sized, 50), max: totals.maxBytes! } } : {}),
    latencyHistogram,
    errorsByCode,
    otherErrors,
    days: usageSummaries(db, [toolId], days)[0]!.days,
  };
}
