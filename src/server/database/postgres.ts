import pg from "pg";
import type { Database, Queryable, QueryResult } from "../../contract/database.ts";

// int8 (bigint ids, counts) arrive as strings by default; counts we cast in SQL, ids stay strings.

export interface PostgresOptions {
  /** Every connection uses this schema (tests isolate themselves in one). */
  schema?: string;
  max?: number;
}

/** PostgreSQL through a connection pool, for several instances sharing one database. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on("error", () => {});
  const client = await pool.connect();
  client.release();
  const query = async <Row>(
    target: pg.Pool | pg.PoolClient,
    sql: string,
    params: unknown[] = [],
  ): Promise<QueryResult<Row>> => {
    const result = await target.query(sql, params);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  };
  return {
    engine: "postgres",
    query: (sql, params) => query(pool, sql, params),
    exec: async (sql) => {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      try {
        await connection.query("BEGIN");
        const result = await fn({
          query: (sql, params) => query(connection, sql, params),
          exec: async (sql) => {
            await connection.query(sql);
          },
        });
        await connection.query("COMMIT");
        return result;
      } catch (error) {
        await connection.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  };
}
