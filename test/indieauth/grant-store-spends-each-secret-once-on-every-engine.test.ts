// The IndieAuth grant store (grant-store.ts), in memory and on each database engine: a code or a
// refresh token is kept only as its SHA-256, is spent by its first use, and a second use is told
// apart from a secret never issued (a replay revokes the grant); a refresh token that was revoked
// or has expired is neither peeked nor spent; revoking a grant answers its access tokens' ids.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, afterEach, before, describe, it, mock } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { tokenRegistryMigrations } from "../../src/server/auth/token-registry.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import {
  CODE_LIFETIME_MS,
  type GrantStore,
  grantStore,
  indieauthMigrations,
} from "../../src/server/indieauth/grant-store.ts";
import { engines } from "../helpers/databases.ts";
import { memoryAndEngines } from "../helpers/memory-and-engines.ts";

const DAY = 86_400_000;
const ME = "https://me.example/";
const CLIENT = "https://app.example/";
const sha256 = (secret: string) => createHash("sha256").update(secret, "utf8").digest("base64url");
const codeGrant = (grantId = "grant-1") => ({
  grantId,
  clientId: CLIENT,
  redirectUri: `${CLIENT}callback`,
  codeChallenge: "c".repeat(43),
  scope: ["create", "media"],
  me: ME,
});
const refreshGrant = (grantId: string, accessTokenId: string, expiresAt = new Date(Date.now() + DAY)) => ({
  grantId,
  clientId: CLIENT,
  scope: ["create", "update"],
  accessTokenId,
  expiresAt,
});

afterEach(() => mock.timers.reset());

for (const kind of memoryAndEngines) {
  describe(`the grant store spends each secret once (${kind.name})`, () => {
    let database: Database | null;
    let store: GrantStore;
    before(async () => {
      database = await kind.open();
      if (database) await migrate(database, [...tokenRegistryMigrations, ...indieauthMigrations]);
      store = grantStore(database);
    });
    after(async () => {
      await database?.close();
    });

    it("answers a code's grant once, with its ten minutes; then a replay; an unknown code is unknown", async () => {
      const before = Date.now();
      const code = await store.issueCode(codeGrant());
      assert.match(code, /^[\w-]{43}$/, "32 random bytes");
      assert.notEqual(code, await store.issueCode(codeGrant()));
      const first = await store.redeemCode(code);
      assert.equal(first.kind, "ok");
      assert.ok(first.kind === "ok");
      const { expiresAt, ...grant } = first.grant;
      assert.deepEqual(grant, codeGrant());
      assert.ok(expiresAt.getTime() >= before + CODE_LIFETIME_MS - 1000, String(expiresAt));
      assert.ok(expiresAt.getTime() <= Date.now() + CODE_LIFETIME_MS, String(expiresAt));
      assert.deepEqual(await store.redeemCode(code), { kind: "reused", grantId: "grant-1" });
      assert.deepEqual(await store.redeemCode("never-issued"), { kind: "unknown" });
      assert.equal(CODE_LIFETIME_MS, 600_000);
    });

    it("answers an empty scope as no scope at all, not one empty word", async () => {
      const code = await store.issueCode({ ...codeGrant("no-scope"), scope: [] });
      const spent = await store.redeemCode(code);
      assert.ok(spent.kind === "ok");
      assert.deepEqual(spent.grant.scope, []);
      const refresh = await store.issueRefreshToken({
        ...refreshGrant("no-scope", "access-none"),
        scope: [],
      });
      assert.deepEqual((await store.peekRefreshToken(refresh))?.scope, []);
    });

    it("keeps only the SHA-256 of a code and of a refresh token", async () => {
      if (!database) return;
      const code = await store.issueCode(codeGrant("hashed"));
      const refresh = await store.issueRefreshToken(refreshGrant("hashed", "hashed-access"));
      const codes = await database.query<{ code_hash: string }>(
        "SELECT code_hash FROM indieauth_codes WHERE grant_id = 'hashed'",
      );
      assert.deepEqual(codes.rows, [{ code_hash: sha256(code) }]);
      const tokens = await database.query<{ token_hash: string }>(
        "SELECT token_hash FROM indieauth_refresh_tokens WHERE grant_id = 'hashed'",
      );
      assert.deepEqual(tokens.rows, [{ token_hash: sha256(refresh) }]);
    });

    it("peeks at a live refresh token without spending it, spends it once, then sees the replay", async () => {
      const token = await store.issueRefreshToken(refreshGrant("grant-r", "access-r"));
      assert.match(token, /^[\w-]{43}$/);
      const peeked = await store.peekRefreshToken(token);
      assert.deepEqual(peeked && { ...peeked, expiresAt: undefined }, {
        ...refreshGrant("grant-r", "access-r"),
        expiresAt: undefined,
      });
      assert.ok(peeked);
      assert.notEqual(await store.peekRefreshToken(token), null, "peeking spends nothing");
      const spent = await store.redeemRefreshToken(token);
      assert.equal(spent.kind, "ok");
      assert.ok(spent.kind === "ok");
      assert.deepEqual(spent.grant.scope, ["create", "update"]);
      assert.equal(spent.grant.accessTokenId, "access-r");
      assert.equal(spent.grant.clientId, CLIENT);
      assert.equal(spent.grant.expiresAt.getTime(), peeked.expiresAt.getTime());
      assert.equal(await store.peekRefreshToken(token), null, "spent");
      assert.deepEqual(await store.redeemRefreshToken(token), { kind: "reused", grantId: "grant-r" });
      assert.deepEqual(await store.redeemRefreshToken("never-issued"), { kind: "unknown" });
      assert.equal(await store.peekRefreshToken("never-issued"), null);
    });

    it("neither peeks nor spends a refresh token revoked or expired, and calls it unknown, not a replay", async () => {
      const expired = await store.issueRefreshToken(
        refreshGrant("grant-e", "access-e", new Date(Date.now() - 1000)),
      );
      assert.equal(await store.peekRefreshToken(expired), null);
      assert.deepEqual(await store.redeemRefreshToken(expired), { kind: "unknown" });
      const revoked = await store.issueRefreshToken(refreshGrant("grant-x", "access-x"));
      assert.deepEqual(await store.revokeGrant("grant-x"), ["access-x"]);
      assert.equal(await store.peekRefreshToken(revoked), null);
      assert.deepEqual(await store.redeemRefreshToken(revoked), { kind: "unknown" });
      // Spent, then its grant revoked: showing it again is still a replay.
      const used = await store.issueRefreshToken(refreshGrant("grant-u", "access-u"));
      assert.equal((await store.redeemRefreshToken(used)).kind, "ok");
      await store.revokeGrant("grant-u");
      assert.deepEqual(await store.redeemRefreshToken(used), { kind: "reused", grantId: "grant-u" });
    });

    it("revokes a grant's refresh tokens only, answering each access token's id once", async () => {
      const a = await store.issueRefreshToken(refreshGrant("grant-g", "access-g1"));
      const b = await store.issueRefreshToken(refreshGrant("grant-g", "access-g1"));
      const c = await store.issueRefreshToken(refreshGrant("grant-g", "access-g2"));
      const other = await store.issueRefreshToken(refreshGrant("grant-h", "access-h"));
      assert.deepEqual((await store.revokeGrant("grant-g")).sort(), ["access-g1", "access-g2"]);
      for (const token of [a, b, c]) assert.equal(await store.peekRefreshToken(token), null);
      assert.notEqual(await store.peekRefreshToken(other), null);
      assert.deepEqual(await store.revokeGrant("no-such-grant"), []);
    });

    it("finds the grant of a refresh token or of an access token's id", async () => {
      const token = await store.issueRefreshToken(refreshGrant("grant-f", "access-f"));
      await store.issueRefreshToken(refreshGrant("grant-f2", "access-f2"));
      assert.equal(await store.grantOf({ refreshToken: token }), "grant-f");
      assert.equal(await store.grantOf({ accessTokenId: "access-f" }), "grant-f");
      assert.equal(await store.grantOf({ accessTokenId: "access-f2" }), "grant-f2");
      assert.equal(await store.grantOf({ refreshToken: "never-issued" }), null);
      assert.equal(await store.grantOf({ accessTokenId: "never-issued" }), null);
      assert.equal(await store.grantOf({}), null);
      // A refresh token named is looked up as one, even beside an access token's id.
      assert.equal(await store.grantOf({ refreshToken: "never-issued", accessTokenId: "access-f" }), null);
    });
  });
}

describe("the grant store's migrations", () => {
  it("keep the ids they were shipped with: a database that applied one would apply it again", () => {
    assert.deepEqual(
      indieauthMigrations.map((migration) => migration.id),
      ["host/005-indieauth-grants", "host/007-access-tokens-of-indieauth-grants"],
    );
  });
});

describe("the grant store in memory forgets spent secrets a day after they expired", () => {
  it("sees a replay up to a day after the end, and nothing after", async () => {
    mock.timers.enable({ apis: ["Date"], now: 1_000_000_000 });
    const store = grantStore(null);
    const code = await store.issueCode(codeGrant("late"));
    const refresh = await store.issueRefreshToken(
      refreshGrant("late", "access-late", new Date(Date.now() + CODE_LIFETIME_MS)),
    );
    assert.equal((await store.redeemCode(code)).kind, "ok");
    assert.equal((await store.redeemRefreshToken(refresh)).kind, "ok");
    mock.timers.tick(CODE_LIFETIME_MS + DAY);
    await store.issueCode(codeGrant("sweeper"));
    assert.deepEqual(await store.redeemCode(code), { kind: "reused", grantId: "late" }, "a day after: kept");
    assert.deepEqual(await store.redeemRefreshToken(refresh), { kind: "reused", grantId: "late" });
    mock.timers.tick(1);
    await store.issueCode(codeGrant("sweeper"));
    assert.deepEqual(await store.redeemCode(code), { kind: "unknown" }, "past a day: swept");
    assert.deepEqual(await store.redeemRefreshToken(refresh), { kind: "unknown" });
  });

  it("ends a refresh token at its expiry, to the millisecond", async () => {
    mock.timers.enable({ apis: ["Date"], now: 2_000_000_000 });
    const store = grantStore(null);
    const token = await store.issueRefreshToken(
      refreshGrant("edge", "access-edge", new Date(Date.now() + 10)),
    );
    mock.timers.tick(9);
    assert.notEqual(await store.peekRefreshToken(token), null);
    mock.timers.tick(1);
    assert.equal(await store.peekRefreshToken(token), null);
    assert.deepEqual(await store.redeemRefreshToken(token), { kind: "unknown" });
  });
});

describe("the grant store on a database forgets spent secrets a day after they expired", () => {
  for (const engine of engines) {
    it(`keeps a code and a refresh token expired less than a day (${engine.name})`, async () => {
      const database = await engine.open();
      try {
        await migrate(database, [...tokenRegistryMigrations, ...indieauthMigrations]);
        const store = grantStore(database);
        const old = await store.issueCode(codeGrant("old"));
        const recent = await store.issueCode(codeGrant("recent"));
        await store.redeemCode(old);
        await store.redeemCode(recent);
        const oldRefresh = await store.issueRefreshToken(
          refreshGrant("old", "access-old", new Date(Date.now() - DAY - 60_000)),
        );
        const recentRefresh = await store.issueRefreshToken(
          refreshGrant("recent", "access-recent", new Date(Date.now() - DAY + 60_000)),
        );
        await database.query(
          "UPDATE indieauth_codes SET expires_at = now() - interval '1 day 1 minute' WHERE grant_id = 'old'",
        );
        await database.query(
          "UPDATE indieauth_codes SET expires_at = now() - interval '23 hours' WHERE grant_id = 'recent'",
        );
        await database.query("UPDATE indieauth_refresh_tokens SET used_at = now()");
        await store.issueCode(codeGrant("sweeper"));
        await store.issueRefreshToken(refreshGrant("sweeper", "access-sweeper"));
        assert.deepEqual(await store.redeemCode(old), { kind: "unknown" });
        assert.deepEqual(await store.redeemCode(recent), { kind: "reused", grantId: "recent" });
        assert.deepEqual(await store.redeemRefreshToken(oldRefresh), { kind: "unknown" });
        assert.deepEqual(await store.redeemRefreshToken(recentRefresh), {
          kind: "reused",
          grantId: "recent",
        });
      } finally {
        await database.close();
      }
    });
  }
});
