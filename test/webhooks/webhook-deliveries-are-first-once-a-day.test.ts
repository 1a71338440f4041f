// Replay protection's memory (deliveries.ts) on each engine: a delivery is first once, a copy of it
// is a replay for a day (by any one of its ids), an id seen longer ago is first again, and a
// delivery forgotten (the server was shutting down) counts again when resent. A day is passed by
// moving the stored time back, as the database's own clock cannot be injected.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { DELIVERY_MEMORY_HOURS, WebhookDeliveries } from "../../src/plugin/webhooks/deliveries.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import { engines } from "../helpers/databases.ts";

for (const engine of engines) {
  describe(`webhook deliveries are first once a day (${engine.name})`, () => {
    let database: Database;
    let deliveries: WebhookDeliveries;
    before(async () => {
      database = await engine.open();
      // PostgreSQL's schema starts empty (PGlite's snapshot has them: migrate skips what is there).
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
      deliveries = new WebhookDeliveries(database);
    });
    after(() => database.close());

    /** Moves every stored id `hours` into the past. */
    const age = (hours: number) =>
      database.query(`UPDATE webhook_deliveries SET seen_at = now() - $1::int * interval '1 hour'`, [hours]);
    const stored = async () =>
      (await database.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries")).rows[0]?.n;

    it("is first once, then a replay, by any one of its ids", async () => {
      assert.equal(await deliveries.first(["github:body:a", "github:delivery:1"]), true);
      assert.equal(await deliveries.first(["github:body:a", "github:delivery:1"]), false);
      assert.equal(
        await deliveries.first(["github:body:a", "github:delivery:2"]),
        false,
        "a new id on a seen body",
      );
      assert.equal(
        await deliveries.first(["github:body:b", "github:delivery:1"]),
        false,
        "a seen id on a new body",
      );
      assert.equal(await deliveries.first(["github:body:c", "github:delivery:3"]), true);
    });

    it("stores its ids hashed, whatever their length", async () => {
      await deliveries.first([`generic:-:${"x".repeat(5000)}`]);
      const keys = await database.query<{ key: string }>("SELECT key FROM webhook_deliveries");
      for (const { key } of keys.rows) assert.match(key, /^[0-9a-f]{64}$/);
    });

    it("counts a key given twice once (a delivery is not its own replay)", async () => {
      assert.equal(await deliveries.first(["netlify:deploy:d9:ready", "netlify:deploy:d9:ready"]), true);
    });

    it("is first with no ids at all, and stores nothing for it", async () => {
      const before = await stored();
      assert.equal(await deliveries.first([]), true);
      assert.equal(await stored(), before);
    });

    it(`remembers an id for ${DELIVERY_MEMORY_HOURS} hours, then takes it as first again`, async () => {
      await deliveries.first(["generic:1:kept"]);
      await age(DELIVERY_MEMORY_HOURS - 1);
      assert.equal(await deliveries.first(["generic:1:kept"]), false, "an hour before the day is over");
      await age(DELIVERY_MEMORY_HOURS + 1);
      assert.equal(await deliveries.first(["generic:1:kept"]), true, "past the day");
      assert.equal(await deliveries.first(["generic:1:kept"]), false, "and renewed");
    });

    it("prunes ids older than a day", async () => {
      await deliveries.first(["generic:2:old"]);
      await age(DELIVERY_MEMORY_HOURS + 1);
      await deliveries.first(["generic:3:new"]);
      assert.equal(await stored(), 1);
    });

    it("forgets a delivery that could not be carried out, so that its resend is first", async () => {
      await deliveries.first(["github:body:f", "github:delivery:f"]);
      await deliveries.forget(["github:body:f", "github:delivery:f"]);
      assert.equal(await deliveries.first(["github:body:f", "github:delivery:f"]), true);
      await deliveries.forget([]);
      assert.equal(await deliveries.first(["github:body:f"]), false, "forgetting nothing forgets nothing");
    });
  });
}
