// Instances started at the same moment on a new PostgreSQL database (a deploy of several replicas)
// all migrate it: one at a time, each migration once, and none of them fails on the creation of the
// bookkeeping table the others are creating too.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Database, Migration } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { rateLimitMigrations } from "../../src/server/rate-limit-store.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { sharedPostgres } from "./cluster.ts";

const INSTANCES = 6;
const ROUNDS = 5;
const migrations: Migration[] = [...postMigrations, ...rateLimitMigrations, ...syndicationMigrations];

describe("instances migrating a new PostgreSQL database at the same moment", () => {
  it(`all succeed, ${ROUNDS} times over, and every migration is applied once`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const shared = await sharedPostgres();
      const instances: Database[] = [];
      try {
        for (let i = 0; i < INSTANCES; i += 1)
          instances.push(
            await openPostgres(process.env.TEST_DATABASE_URL as string, { schema: shared.schema }),
          );
        const applied = await Promise.all(instances.map((database) => migrate(database, migrations)));
        assert.deepEqual(
          applied.flat().sort(),
          migrations.map((migration) => migration.id).sort(),
          "each migration was applied by exactly one instance",
        );
        const recorded = await (instances[0] as Database).query<{ count: number }>(
          "SELECT count(*)::int AS count FROM schema_migrations",
        );
        assert.equal(recorded.rows[0]?.count, migrations.length);
      } finally {
        await Promise.all(instances.map((database) => database.close()));
        await shared.drop();
      }
    }
  });
});
