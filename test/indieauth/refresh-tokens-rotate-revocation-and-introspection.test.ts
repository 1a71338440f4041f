// After the code: refresh tokens are spent by their use and replaced (a copy used again revokes the
// grant); a token revoked on the status page cannot be refreshed back to life; the revocation
// endpoint ends a grant from either of its tokens (RFC 7009); introspection (RFC 7662) answers only
// a caller holding a live token of this server.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeJwt } from "jose";
import { engines } from "../helpers/databases.ts";
import { signedInClient } from "./signed-in-client.ts";

for (const engine of engines) {
  describe(`refresh, revocation and introspection (${engine.name})`, () => {
    const indieauth = signedInClient({ engine });
    const { tokens, refresh, works } = indieauth;
    const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${indieauth.server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(fields),
        redirect: "manual",
      });

    it("rotates refresh tokens, narrows scope on request, and treats a second use as theft", async () => {
      const first = await tokens();
      const second = await refresh(first.refresh_token, { scope: "create" });
      assert.equal(second.status, 200);
      assert.equal(second.body.scope, "create");
      assert.notEqual(second.body.refresh_token, first.refresh_token);
      assert.ok(await works(second.body.access_token as string));
      const wider = await refresh(second.body.refresh_token as string, { scope: "create delete" });
      assert.equal(wider.body.error, "invalid_scope");

      const replay = await refresh(first.refresh_token);
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, "invalid_grant");
      // Every token of the grant is gone: the one the thief or the client holds alike.
      assert.equal(await works(second.body.access_token as string), false);
      assert.equal((await refresh(second.body.refresh_token as string)).body.error, "invalid_grant");
    });

    it("refuses to refresh a grant whose token the owner revoked on the status page", async () => {
      const granted = await tokens();
      const id = decodeJwt(granted.access_token).jti as string;
      const page = await indieauth.statusPage();
      assert.ok(page.includes(`data-token-id="${id}"`), "listed on the status page");
      const revoked = await indieauth.revokeOnStatus(id);
      assert.equal(revoked.status, 303);
      assert.equal(await works(granted.access_token), false);
      const again = await refresh(granted.refresh_token);
      assert.equal(again.body.error, "invalid_grant");
    });

    it("revokes a grant from its refresh token or its access token, answering 200 for any token", async () => {
      const one = await tokens();
      assert.equal((await post("/auth/revoke", { token: one.refresh_token })).status, 200);
      assert.equal(await works(one.access_token), false);
      const two = await tokens();
      assert.equal((await post("/auth/revoke", { token: two.access_token })).status, 200);
      assert.equal(await works(two.access_token), false);
      assert.equal((await refresh(two.refresh_token)).body.error, "invalid_grant");
      assert.equal((await post("/auth/revoke", { token: "never-issued" })).status, 200);
      const missing = await post("/auth/revoke", {});
      assert.equal(missing.status, 400);
      assert.equal(((await missing.json()) as { error: string }).error, "invalid_request");
    });

    it("introspects for a caller with a live token, and for nobody else", async () => {
      const granted = await tokens();
      const owner = await indieauth.server.token("create");
      const active = await post(
        "/auth/introspect",
        { token: granted.access_token },
        { authorization: `Bearer ${owner}` },
      );
      assert.equal(active.status, 200);
      const body = (await active.json()) as Record<string, unknown>;
      assert.equal(body.active, true);
      assert.equal(body.client_id, indieauth.client.clientId);
      assert.equal(body.me, indieauth.server.host.publication.me);
      assert.equal(body.scope, "create update");
      const stranger = await post("/auth/introspect", { token: granted.access_token });
      assert.equal(stranger.status, 401);
      assert.equal(((await stranger.json()) as { active?: boolean }).active, undefined);
      const bogus = await post("/auth/introspect", { token: "nope" }, { authorization: `Bearer ${owner}` });
      assert.deepEqual(await bogus.json(), { active: false });
    });

    it("keeps IndieAuth's older token verification (GET) and revocation (action=revoke)", async () => {
      const granted = await tokens("create");
      const verified = await fetch(`${indieauth.server.url}/auth/token`, {
        headers: { authorization: `Bearer ${granted.access_token}`, accept: "application/json" },
      });
      assert.equal(verified.status, 200);
      assert.deepEqual(await verified.json(), {
        me: indieauth.server.host.publication.me,
        client_id: indieauth.client.clientId,
        scope: "create",
      });
      const revoked = await post("/auth/token", { action: "revoke", token: granted.access_token });
      assert.equal(revoked.status, 200);
      const after = await fetch(`${indieauth.server.url}/auth/token`, {
        headers: { authorization: `Bearer ${granted.access_token}` },
      });
      assert.equal(after.status, 401);
      assert.equal(await works(granted.access_token), false);
    });
  });
}
