// The tests' embedded databases start from one migrated snapshot instead of running initdb each
// (PostgreSQL's initdb in WebAssembly costs about 5.5 s of CPU per database; opening a dumped data
// folder about 0.6 s, and the migrations another 0.25 s: docs/testing.md). scripts/test.mjs makes
// the snapshot once per run and names it in POSSEKIT_TEST_SNAPSHOT; a test file run on its own
// (node --test) makes it once in its own process. The snapshot is keyed by everything that shapes
// it (PGlite's version, its start parameters, the migrations' SQL), so a changed migration never
// reads a stale one.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Database, Migration, Queryable } from "../../src/contract/database.ts";
import { accountMigrations } from "../../src/server/accounts/migrations.ts";
import { sessionRevocationMigrations } from "../../src/server/auth/session-revocations.ts";
import { tokenRegistryMigrations } from "../../src/server/auth/token-registry.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { startParams } from "../../src/server/database/pglite.ts";
import { pgliteVersion } from "../../src/server/database/pglite-template.ts";
import { indieauthMigrations } from "../../src/server/indieauth/grant-store.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { rateLimitMigrations } from "../../src/server/rate-limit-store.ts";
import { storeMigrations } from "../../src/server/stores/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { mastodonOAuthMigrations } from "../../src/syndicators/mastodon/oauth/mastodon-oauth-store.ts";

/**
 * What every start of the host with the syndication plug-in applies. A migration missing here is
 * not an error: the host applies it on top of the snapshot, as it would on an older database.
 */
export const SNAPSHOT_MIGRATIONS: Migration[] = [
  ...postMigrations,
  ...storeMigrations,
  ...rateLimitMigrations,
  ...sessionRevocationMigrations,
  ...tokenRegistryMigrations,
  ...indieauthMigrations,
  ...accountMigrations,
  ...syndicationMigrations,
  ...mastodonOAuthMigrations,
];

/** Where the snapshot for today's migrations and PGlite lives (a temp folder shared by runs). */
export function snapshotPath(folder = join(tmpdir(), "possekit-test-snapshots")): string {
  const key = createHash("sha256")
    .update("without template databases")
    .update(pgliteVersion())
    .update(JSON.stringify(startParams()))
    .update(JSON.stringify(SNAPSHOT_MIGRATIONS))
    .digest("hex")
    .slice(0, 16);
  return join(folder, `pglite-${pgliteVersion()}-${key}.tar`);
}

/** PGlite as the migrations see it (the Database interface of src/contract/database.ts). */
function asDatabase(pglite: PGlite): Database {
  const wrap = (target: Pick<PGlite, "query" | "exec">): Queryable => ({
    exec: async (sql) => void (await target.exec(sql)),
    query: async <Row>(sql: string, params: unknown[] = []) => {
      const result = await target.query<Row>(sql, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
  });
  return {
    engine: "pglite",
    ...wrap(pglite),
    transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
    close: () => pglite.close(),
  };
}

/**
 * Makes the snapshot at `path` unless it is there: initdb with the server's start parameters, the
 * migrations, a CHECKPOINT (so that an open replays no write-ahead log), then PGlite's dump. Written
 * beside and renamed into place, so that two runs making it at once never read half a file.
 */
export async function makeSnapshot(path = snapshotPath()): Promise<string> {
  if (existsSync(path)) return path;
  const pglite = await PGlite.create({ startParams: startParams() });
  try {
    await migrate(asDatabase(pglite), SNAPSHOT_MIGRATIONS);
    // Only the database the server uses is kept: template0 and template1 (copied by CREATE
    // DATABASE, which nothing here runs) were two thirds of the files every test database unpacked
    // (a tar of 41 MB, 1,101 files; without them 25 MB, about 0.15 s of CPU less per database).
    for (const template of ["template1", "template0"])
      for (const statement of [`ALTER DATABASE ${template} IS_TEMPLATE false`, `DROP DATABASE ${template}`])
        await pglite.exec(statement);
    await pglite.exec("CHECKPOINT");
    const dump = Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer());
    mkdirSync(dirname(path), { recursive: true });
    const scratch = `${path}.${process.pid}`;
    writeFileSync(scratch, dump);
    renameSync(scratch, path);
    return path;
  } finally {
    await pglite.close();
  }
}

let loaded: Blob | undefined;

/** The snapshot's bytes, read (or made) once per process. */
export async function snapshot(): Promise<Blob> {
  if (!loaded) {
    const path = process.env.POSSEKIT_TEST_SNAPSHOT || (await makeSnapshot());
    loaded = new Blob([readFileSync(path)]);
  }
  return loaded;
}

// `node test/helpers/database-snapshot.ts` (scripts/test.mjs, once per run): makes the snapshot
// if needed and prints its path.
if (import.meta.filename === process.argv[1]) process.stdout.write(`${await makeSnapshot()}\n`);
