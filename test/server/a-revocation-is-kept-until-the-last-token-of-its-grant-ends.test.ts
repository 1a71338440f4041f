// Decision 0043, at the registry: a revoked grant's rows are swept only once no token of the grant
// (its refresh token included) can be used, on both engines and in memory. The tokens' dates are set in
// the past, as the clock would have moved: the purge runs as the next token is recorded.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TokenClaims } from "../../src/server/auth/token-signer.ts";
import { memoryAndEngines } from "../helpers/memory-and-engines.ts";
import { tokenRegistryOn } from "./token-registry-on.ts";

const DAY = 86_400_000;
const claims = (id: string, expiresInDays: number): TokenClaims => ({
  me: "https://me.example/",
  scope: ["create"],
  clientId: "https://client.example/",
  id,
  issuedAt: new Date(Date.now() - 8 * DAY),
  expiresAt: new Date(Date.now() + expiresInDays * DAY),
});

for (const kind of memoryAndEngines) {
  describe(`a revocation outlives every token of its grant (${kind.name})`, () => {
    const opened = tokenRegistryOn(kind);

    it("revoking one token revokes every token of its grant, and no other", async () => {
      await opened.registry.record(claims("g1-a", 7), {
        id: "grant-1",
        keepUntil: new Date(Date.now() + 90 * DAY),
      });
      await opened.registry.record(claims("g1-b", 7), {
        id: "grant-1",
        keepUntil: new Date(Date.now() + 91 * DAY),
      });
      await opened.registry.record(claims("other", 7));
      assert.equal(await opened.registry.revoke("g1-a"), "grant-1");
      assert.equal(await opened.registry.isRevoked("g1-b"), true);
      assert.equal(await opened.registry.isRevoked("other"), false);
      assert.equal(await opened.registry.revoke("never-issued"), null);
      // A token added to the grant afterwards (a refresh racing the revocation) is born revoked.
      await opened.registry.record(claims("g1-c", 7), {
        id: "grant-1",
        keepUntil: new Date(Date.now() + 92 * DAY),
      });
      assert.equal(await opened.registry.isRevoked("g1-c"), true);
    });

    it("keeps an expired access token's revocation while its grant's refresh token lives", async () => {
      // Issued eight days ago for seven: expired a day ago; its refresh token lives 82 days more.
      await opened.registry.record(claims("old", -1), {
        id: "grant-2",
        keepUntil: new Date(Date.now() + 82 * DAY),
      });
      await opened.registry.record(claims("expired-alone", -1));
      await opened.registry.revoke("old");
      await opened.registry.record(claims("next", 7)); // sweeps
      assert.equal(await opened.registry.isRevoked("old"), true, "the revocation is still known");
      const listed = (await opened.registry.list()).map((token) => token.id);
      assert.ok(!listed.includes("old"), "an expired token is no longer listed");
      assert.ok(!listed.includes("expired-alone"));
      if (opened.database) {
        const rows = await opened.database.query<{ id: string }>(
          "SELECT id FROM access_tokens WHERE id = 'expired-alone'",
        );
        assert.equal(rows.rows.length, 0, "a token whose grant has nothing left to use is swept");
      }
    });
  });
}
