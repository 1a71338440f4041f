// Decision 0043: revoking any token of a grant on the status page ends the whole grant
// (every access token and the refresh token), and the revocation is kept as long as the grant's
// longest-lived token, so purging expired rows never brings a grant back. Also: a refresh that asks
// for more (a wider scope, another client_id) is refused without spending the refresh token.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeJwt } from "jose";
import { engines } from "../helpers/databases.ts";
import { signedInClient } from "./signed-in-client.ts";

for (const engine of engines) {
  describe(`revoking one token ends its grant, for as long as any of its tokens lives (${engine.name})`, () => {
    const indieauth = signedInClient({ engine });
    const { tokens, refresh, works, statusPage, revokeOnStatus } = indieauth;
    const jti = (token: string) => decodeJwt(token).jti as string;
    const sql = (text: string) => {
      const database = indieauth.server.host.database;
      assert.ok(database, "the test server has a database");
      return database.query(text);
    };

    it("revoking the older token after a refresh ends the newest access and refresh tokens too", async () => {
      const first = await tokens();
      const second = await refresh(first.refresh_token);
      assert.equal(second.status, 200);
      const newest = second.body as { access_token: string; refresh_token: string };
      assert.equal((await revokeOnStatus(jti(first.access_token))).status, 303);
      // The refresh tokens themselves are marked revoked at once (before any refresh
      // could mark them), not only refused through the registry.
      const live = await sql("SELECT token_hash FROM indieauth_refresh_tokens WHERE revoked_at IS NULL");
      assert.equal(live.rows.length, 0, "no refresh token of the grant is left unrevoked");
      assert.equal(await works(newest.access_token), false, "the newest access token is revoked");
      const again = await refresh(newest.refresh_token);
      assert.equal(again.status, 400);
      assert.equal(again.body.error, "invalid_grant");
      const page = await statusPage();
      // The page lists the grant as revoked: the client's grant with both of its tokens, in one group.
      const grant = /<tbody data-grant-id="[^"]+"[^>]*>([\s\S]*?)<\/tbody>/g;
      const groups = [...page.matchAll(grant)].map((match) => match[1] ?? "");
      const group = groups.find((rows) => rows.includes(`data-token-id="${jti(first.access_token)}"`));
      assert.ok(group, "the grant is listed as a group");
      assert.ok(group.includes(`data-token-id="${jti(newest.access_token)}"`), "with its newest token");
      assert.ok(!group.includes("/status/tokens/revoke"), "no revoke button is left for the grant");
    });

    it("keeps the revocation after the access tokens expire and are purged, while the refresh token lives", async () => {
      const granted = await tokens();
      assert.equal((await revokeOnStatus(jti(granted.access_token))).status, 303);
      // Eight days on: the access token (7 days) is past its life, the refresh token (90 days) is not.
      await sql("UPDATE access_tokens SET expires_at = now() - interval '1 day'");
      // The registry's record alone must hold: the refresh token's own mark is a second line.
      await sql("UPDATE indieauth_refresh_tokens SET revoked_at = NULL");
      // The purge runs as a token is recorded (the status page records its own).
      await statusPage();
      assert.ok(
        await works(await indieauth.server.token("create")),
        "a token from elsewhere, recorded on first use",
      );
      const again = await refresh(granted.refresh_token);
      assert.equal(again.status, 400, "the refresh token must not mint tokens again");
      assert.equal(again.body.error, "invalid_grant");
    });

    it("refuses a refresh asking for a wider scope or another client without spending the refresh token", async () => {
      const granted = await tokens();
      const wider = await refresh(granted.refresh_token, { scope: "create update delete" });
      assert.equal(wider.body.error, "invalid_scope");
      const other = await refresh(granted.refresh_token, { client_id: "https://other.example/" });
      assert.equal(other.body.error, "invalid_grant");
      // The client's genuine refresh still works: it is not taken for a replay.
      const genuine = await refresh(granted.refresh_token);
      assert.equal(genuine.status, 200);
      assert.ok(await works(genuine.body.access_token as string));
    });
  });
}
