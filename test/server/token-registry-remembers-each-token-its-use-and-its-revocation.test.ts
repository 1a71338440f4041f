// The token registry (token-registry.ts), in memory and on each database engine: a token presented
// for the first time is remembered with its time of use, a revoked one is refused, the time of use is
// written at most once a minute on a database (each use in memory), a token recorded again never
// lives shorter, and the list shows every field of the tokens not yet expired.
import assert from "node:assert/strict";
import { afterEach, describe, it, mock } from "node:test";
import { tokenRegistryMigrations } from "../../src/server/auth/token-registry.ts";
import type { TokenClaims } from "../../src/server/auth/token-signer.ts";
import { memoryAndEngines } from "../helpers/memory-and-engines.ts";
import { tokenRegistryOn } from "./token-registry-on.ts";

const DAY = 86_400_000;
const SECOND = Math.floor(Date.now() / 1000) * 1000;
const claims = (id: string, expiresInDays = 7, scope = ["create", "media"]): TokenClaims => ({
  me: "https://me.example/",
  scope,
  clientId: `https://client.example/${id}`,
  id,
  issuedAt: new Date(SECOND - DAY),
  expiresAt: new Date(SECOND + expiresInDays * DAY),
});

afterEach(() => mock.timers.reset());

describe("the token registry's migrations", () => {
  it("keep the ids they were shipped with: a database that applied one would apply it again", () => {
    assert.deepEqual(
      tokenRegistryMigrations.map((migration) => migration.id),
      ["host/004-access-tokens", "host/006-access-token-grants", "host/013-access-token-recorded-order"],
    );
  });
});

for (const kind of memoryAndEngines) {
  describe(`the token registry (${kind.name})`, () => {
    const opened = tokenRegistryOn(kind);
    const listed = async (id: string) => (await opened.registry.list()).find((token) => token.id === id);

    it("remembers a token issued elsewhere at its first use, with every field and its time of use", async () => {
      mock.timers.enable({ apis: ["Date"], now: SECOND + 5000 });
      assert.equal(await opened.registry.isRevoked("cli-token"), false, "not known yet");
      assert.equal(await opened.registry.admit(claims("cli-token")), true);
      assert.deepEqual(await listed("cli-token"), {
        id: "cli-token",
        grantId: "cli-token",
        scope: ["create", "media"],
        clientId: "https://client.example/cli-token",
        issuedAt: new Date(SECOND - DAY),
        expiresAt: new Date(SECOND + 7 * DAY),
        lastUsedAt: new Date(SECOND + 5000),
        revokedAt: null,
      });
    });

    it("lists a token recorded by the status page as never used, with no scope when it has none", async () => {
      await opened.registry.record(claims("status-token", 7, []));
      const token = await listed("status-token");
      assert.equal(token?.lastUsedAt, null);
      assert.deepEqual(token?.scope, []);
      assert.equal(token?.revokedAt, null);
    });

    it("refuses a revoked token from then on, and tells when it was revoked", async () => {
      await opened.registry.record(claims("to-revoke"));
      assert.equal(await opened.registry.admit(claims("to-revoke")), true);
      const before = Date.now();
      assert.equal(await opened.registry.revoke("to-revoke"), "to-revoke");
      assert.equal(await opened.registry.admit(claims("to-revoke")), false);
      assert.equal(await opened.registry.isRevoked("to-revoke"), true);
      const revokedAt = (await listed("to-revoke"))?.revokedAt;
      assert.ok(revokedAt instanceof Date);
      assert.ok(Math.abs(revokedAt.getTime() - before) < 60_000, String(revokedAt));
      // Revoked again, it keeps the first time.
      await opened.registry.revoke("to-revoke");
      assert.equal((await listed("to-revoke"))?.revokedAt?.getTime(), revokedAt.getTime());
    });

    it("never shortens a token recorded again, and lists it until it expires", async () => {
      await opened.registry.record(claims("again", 30));
      await opened.registry.record(claims("again", 2));
      assert.equal((await listed("again"))?.expiresAt.getTime(), SECOND + 30 * DAY);
      await opened.registry.record(claims("again", 40));
      assert.equal((await listed("again"))?.expiresAt.getTime(), SECOND + 40 * DAY);
      await opened.registry.record(claims("gone", -1), {
        id: "gone-grant",
        keepUntil: new Date(SECOND + DAY),
      });
      assert.equal(await listed("gone"), undefined, "expired: not listed");
      assert.equal(await opened.registry.admit(claims("gone", -1)), true, "still known, not revoked");
    });

    it("keeps a revocation as long as the grant's longest-lived token, when recorded again shorter", async () => {
      const grant = (days: number) => ({ id: "kept-grant", keepUntil: new Date(SECOND + days * DAY) });
      await opened.registry.record(claims("kept", -1), grant(3));
      await opened.registry.record(claims("kept", -1), grant(1));
      await opened.registry.revoke("kept");
      mock.timers.enable({ apis: ["Date"], now: SECOND + 2 * DAY });
      if (opened.database) {
        // The database sweeps by its own clock: its keep_until is read instead.
        const rows = await opened.database.query<{ keep_until: Date | string }>(
          "SELECT keep_until FROM access_tokens WHERE id = 'kept'",
        );
        assert.equal(new Date(rows.rows[0]?.keep_until ?? 0).getTime(), SECOND + 3 * DAY);
      } else {
        await opened.registry.record(claims("sweeper"));
        assert.equal(await opened.registry.isRevoked("kept"), true, "kept past the shorter keepUntil");
      }
    });

    it("keeps a revocation as long as the token itself when its grant's keepUntil is earlier", async () => {
      await opened.registry.record(claims("outlives-grant", 7), {
        id: "short-grant",
        keepUntil: new Date(SECOND + DAY),
      });
      await opened.registry.revoke("outlives-grant");
      mock.timers.enable({ apis: ["Date"], now: SECOND + 2 * DAY });
      if (opened.database) {
        const rows = await opened.database.query<{ keep_until: Date | string }>(
          "SELECT keep_until FROM access_tokens WHERE id = 'outlives-grant'",
        );
        assert.equal(new Date(rows.rows[0]?.keep_until ?? 0).getTime(), SECOND + 7 * DAY);
      } else {
        await opened.registry.record(claims("sweeper-2"));
        assert.equal(await opened.registry.admit(claims("outlives-grant", 7)), false, "still refused");
      }
    });

    it(`writes the time of use ${kind.name === "memory" ? "on each use" : "at most once a minute"}`, async () => {
      mock.timers.enable({ apis: ["Date"], now: SECOND + 10_000 });
      await opened.registry.admit(claims("busy"));
      mock.timers.tick(60_000);
      await opened.registry.admit(claims("busy"));
      const early = (await listed("busy"))?.lastUsedAt?.getTime();
      assert.equal(early, kind.name === "memory" ? SECOND + 70_000 : SECOND + 10_000);
      mock.timers.tick(1);
      await opened.registry.admit(claims("busy"));
      assert.equal((await listed("busy"))?.lastUsedAt?.getTime(), SECOND + 70_001);
      if (opened.database) {
        await opened.database.query("UPDATE access_tokens SET last_used_at = NULL WHERE id = 'busy'");
        await opened.registry.admit(claims("busy"));
        assert.equal((await listed("busy"))?.lastUsedAt?.getTime(), SECOND + 70_001, "a first use recorded");
      }
    });
  });
}
