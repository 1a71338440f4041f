// One small interface over PGlite (embedded) and PostgreSQL, so that every query is written once.

export interface QueryResult<Row> {
  rows: Row[];
  /** Rows inserted, updated or deleted by the statement (0 for a plain select). */
  rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<Row>>;
  /** Runs one or more statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly engine: "pglite" | "postgres";
  /** Runs fn in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Migration {
  /** Unique and ordered within its plug-in, e.g. "endpoint-syndicate/001-ledger". */
  id: string;
  sql: string;
}
