/**
 * Reading a token table (prefixes, words) in tier order: (neg_mod, id).
 *
 * The tables store the tool's integer rid, not its id, and their B-tree is ordered by
 * (…, neg_mod, rid). Rows with the same neg_mod (the same modifiedAt millisecond) are
 * therefore put in id order here: a batch that ends inside such a group is completed
 * with the whole group, and a cursor inside a group resumes with the rest of the group.
 * A batch returns at least `limit` rows unless the source is exhausted.
 * Groups are one row in practice; a big one (many tools saved in the same millisecond)
 * costs its size per batch, never a sort of all hits.
 */
import type Database from 'better-sqlite3';
import type { RowFetch } from './merge';
import { compareRankKey, type RankKey } from './ranking';
import { compareCodePoints } from './text';

type DB = Database.Database;

export class OrderedSource<T extends RankKey = RankKey> {
  private readonly next: Database.Statement;
  private readonly group: Database.Statement;

  /**
   * @param table  the token table, aliased `x` (joined with `tools t`)
   * @param where  constraints on x with `?` placeholders for the params given to fetcher()
   * @param extra  more columns to select, e.g. `, d.slug`
   * @param join   more tables to join, e.g. `JOIN tool_data d ON d.rid = x.rid`
   */
  constructor(db: DB, table: string, where: string, extra = '', join = '') {
    const head = `SELECT x.neg_mod AS negMod, t.id AS id${extra} FROM ${table} x JOIN tools t ON t.rid = x.rid ${join} WHERE ${where}`;
    this.next = db.prepare(`${head} AND x.neg_mod > ? ORDER BY x.neg_mod, x.rid LIMIT ?`);
    this.group = db.prepare(`${head} AND x.neg_mod = ?`);
  }

  fetcher(params: readonly unknown[]): (after: RankKey, limit: number) => T[] {
    return (after, limit) => {
      const out: T[] = [];
      if (after.id !== '') {
        const rest = (this.group.all(...params, after.negMod) as T[]).filter((r) => compareCodePoints(r.id, after.id) > 0);
        rest.sort(compareRankKey);
        for (const r of rest) out.push(r);
      }
      // One row more than asked: if it starts a new group, the batch ends on a complete
      // group and no second query is needed (the usual case).
      const rows = this.next.all(...params, after.negMod, limit + 1) as T[];
      if (rows.length > limit) {
        const lastNegMod = rows[limit - 1].negMod;
        if (rows[limit].negMod !== lastNegMod) {
          rows.length = limit;
        } else {
          let cut = rows.length;
          while (cut > 0 && rows[cut - 1].negMod === lastNegMod) cut--;
          rows.length = cut;
          for (const r of this.group.all(...params, lastNegMod) as T[]) rows.push(r);
        }
      }
      rows.sort(compareRankKey);
      for (const r of rows) out.push(r);
      return out;
    };
  }
}

export type { RowFetch };
