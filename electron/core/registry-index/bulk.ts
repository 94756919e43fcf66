/** Multi-row INSERTs: one statement per `rowsPerStatement` rows instead of one per row. */
import type Database from 'better-sqlite3';

type DB = Database.Database;

export class BulkInserter {
  private readonly many: Database.Statement;
  private readonly one: Database.Statement;
  private buf: unknown[] = [];
  private rows = 0;

  constructor(
    db: DB,
    head: string, // e.g. `INSERT OR IGNORE INTO words (word, enabled, in_prefix, neg_mod, id)`
    private readonly width: number,
    private readonly rowsPerStatement = 100,
  ) {
    const tuple = `(${new Array(width).fill('?').join(',')})`;
    this.one = db.prepare(`${head} VALUES ${tuple}`);
    this.many = db.prepare(`${head} VALUES ${new Array(rowsPerStatement).fill(tuple).join(',')}`);
  }

  add(...values: unknown[]): void {
    for (let i = 0; i < this.width; i++) this.buf.push(values[i]);
    if (++this.rows === this.rowsPerStatement) {
      this.many.run(this.buf);
      this.buf = [];
      this.rows = 0;
    }
  }

  flush(): void {
    for (let r = 0; r < this.rows; r++) this.one.run(this.buf.slice(r * this.width, (r + 1) * this.width));
    this.buf = [];
    this.rows = 0;
  }
}
