// Wraps a Database to count and time its statements by kind, for the "where does the time go"
// breakdown beside a figure. It adds two clock reads per statement (well under a microsecond).
import { performance } from "node:perf_hooks";
import type { Database, Queryable, QueryResult } from "../../src/contract/database.ts";

export interface QueryKindStats {
  kind: string;
  count: number;
  totalMs: number;
}

// The statements of the core and the post service, named for a reader; anything else is shown by
// its first words.
const KINDS: Array<[RegExp, string]> = [
  [/^WITH claimed AS/, "ledger.claim (INSERT … ON CONFLICT + attempt row)"],
  // A batch's next post's claim riding a write-back (decision 0075).
  [
    /^WITH outcome AS .*next_claimed AS .*UPDATE posts SET properties/s,
    "posts.update with the outcomes and the next post's claim",
  ],
  [/^WITH outcome AS .*next_claimed AS/s, "ledger.recordOutcomes with the next post's claim"],
  [/^WITH outcome AS .*UPDATE posts SET properties/s, "posts.update with the outcomes (one statement)"],
  [/^WITH outcome AS/, "ledger.recordOutcomes"],
  [/^WITH attempt AS \(\s*UPDATE syndication_attempts SET outcome = 'syndicated'/, "ledger.recordSuccess"],
  [/^WITH attempt AS \(\s*UPDATE syndication_attempts SET outcome = 'failed'/, "ledger.recordFailure"],
  [/^WITH resolved AS/, "ledger.resolveStale"],
  [/FROM syndication_targets WHERE post_id = \$1::bigint/, "ledger.entriesForPost"],
  [/FROM syndication_targets WHERE post_id = ANY/, "ledger.summaryForPosts (a page of posts)"],
  [/FROM syndication_texts\s+WHERE post_id = ANY/, "own words of a page of posts"],
  [
    /FROM posts\s+WHERE status = 'published'.*AND \(published, id\) >/s,
    "posts.nextAwaitingSyndication (after cursor)",
  ],
  [/FROM posts\s+WHERE status = 'published'/, "posts.nextAwaitingSyndication (first page)"],
  [/FROM posts WHERE id = \$1::bigint/, "posts.findById"],
  [/FROM posts WHERE url = \$1[^;]*? FOR UPDATE/s, "posts.update: SELECT … FOR UPDATE"],
  [/^UPDATE posts SET properties/, "posts.update: UPDATE"],
  [/^UPDATE syndication_lease SET expires_at/, "lease renewal"],
  [/syndication_lease/, "lease take/release/read"],
  [/syndication_runs/, "run log"],
];

const WRITES = /\b(INSERT|UPDATE|DELETE)\b/;

function kindOf(sql: string): string {
  const text = sql.trim();
  for (const [pattern, kind] of KINDS) if (pattern.test(text)) return kind;
  return text.replace(/\s+/g, " ").slice(0, 48);
}

export class QueryTimer {
  private readonly stats = new Map<string, QueryKindStats>();
  /** Statements outside transactions that changed rows: each is a commit of its own. */
  private autocommitWrites = 0;
  private transactions: QueryKindStats = {
    kind: "transactions (BEGIN … COMMIT, whole)",
    count: 0,
    totalMs: 0,
  };

  private record(kind: string, elapsed: number): void {
    const entry = this.stats.get(kind) ?? { kind, count: 0, totalMs: 0 };
    entry.count += 1;
    entry.totalMs += elapsed;
    this.stats.set(kind, entry);
  }

  private timed(target: Queryable, prefix: string): Queryable {
    return {
      query: async <Row>(sql: string, params?: unknown[]): Promise<QueryResult<Row>> => {
        const started = performance.now();
        try {
          const result = await target.query<Row>(sql, params);
          // A write outside a transaction that changed no row (a guarded UPDATE that found nothing to
          // do) commits nothing to flush: PostgreSQL writes no WAL record for it.
          if (prefix === "" && WRITES.test(sql) && (result.rowCount > 0 || result.rows.length > 0))
            this.autocommitWrites += 1;
          return result;
        } finally {
          this.record(prefix + kindOf(sql), performance.now() - started);
        }
      },
      exec: (sql: string) => target.exec(sql),
    };
  }

  wrap(database: Database): Database {
    const top = this.timed(database, "");
    return {
      engine: database.engine,
      query: top.query,
      exec: top.exec,
      transaction: async <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
        const started = performance.now();
        try {
          return await database.transaction((tx) => fn(this.timed(tx, "  in a transaction: ")));
        } finally {
          this.transactions.count += 1;
          this.transactions.totalMs += performance.now() - started;
        }
      },
      close: () => database.close(),
    };
  }

  reset(): void {
    this.stats.clear();
    this.autocommitWrites = 0;
    this.transactions = { ...this.transactions, count: 0, totalMs: 0 };
  }

  /** Statements by total time, most first; the statements inside transactions follow their total. */
  report(): QueryKindStats[] {
    const rows = [...this.stats.values()].sort((a, b) => b.totalMs - a.totalMs);
    const top = rows.filter((row) => !row.kind.startsWith("  "));
    const inner = rows.filter((row) => row.kind.startsWith("  "));
    return [...top, ...(this.transactions.count > 0 ? [this.transactions] : []), ...inner];
  }

  /** Time spent waiting on the database outside transactions plus whole transactions. */
  totalMs(): number {
    let total = this.transactions.totalMs;
    for (const row of this.stats.values()) if (!row.kind.startsWith("  ")) total += row.totalMs;
    return total;
  }

  /** Commits that change rows: transactions and writes outside them. */
  commits(): number {
    return this.transactions.count + this.autocommitWrites;
  }

  /** Statements sent, each statement inside a transaction counted, plus BEGIN and COMMIT. */
  statements(): number {
    let total = this.transactions.count * 2;
    for (const row of this.stats.values()) total += row.count;
    return total;
  }
}
