// The token endpoint (IndieAuth §5.3, RFC 6749 §5.2, RFC 7636 §4.6): a code is spent by its first
// redemption, lives 10 minutes, and is bound to its client_id, redirect_uri and code challenge.
// Every refusal is 400 {"error":"invalid_grant"}; a reused code also revokes what it was exchanged for.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { approvedCode, exchangeCode, pkcePair } from "./indieauth-client.ts";
import { signedInClient } from "./signed-in-client.ts";

for (const engine of engines) {
  describe(`authorization codes refused at the token endpoint (${engine.name})`, () => {
    const indieauth = signedInClient({ engine });
    const token = () => `${indieauth.server.url}/auth/token`;
    const code = (scope?: string) =>
      approvedCode(indieauth.server.url, indieauth.client, indieauth.session, scope);
    const exchange = (fields: { code: string; verifier: string }, overrides: Record<string, string> = {}) =>
      exchangeCode(token(), {
        grant_type: "authorization_code",
        code: fields.code,
        client_id: indieauth.client.clientId,
        redirect_uri: indieauth.client.redirectUri,
        code_verifier: fields.verifier,
        ...overrides,
      });
    const micropubCreate = (accessToken: string) =>
      fetch(`${indieauth.server.url}/micropub`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${accessToken}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ h: "entry", content: "From an IndieAuth client" }),
      });

    it("exchanges a code once for a token with me, scope, expires_in and a refresh token", async () => {
      const granted = await code();
      const { status, body } = await exchange(granted);
      assert.equal(status, 200);
      assert.equal(body.token_type, "Bearer");
      assert.equal(body.me, indieauth.server.host.publication.me);
      assert.equal(body.scope, "create update");
      assert.equal(typeof body.access_token, "string");
      assert.equal(typeof body.refresh_token, "string");
      assert.ok(Number(body.expires_in) > 6 * 86_400 && Number(body.expires_in) <= 7 * 86_400);
      assert.equal((await micropubCreate(body.access_token as string)).status, 201);
    });

    it("refuses a wrong code_verifier, and the code is spent by the attempt", async () => {
      const granted = await code();
      const wrong = await exchange({ ...granted, verifier: pkcePair().verifier });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, "invalid_grant");
      assert.match(String(wrong.body.error_description), /code_verifier/);
      const right = await exchange(granted);
      assert.equal(right.status, 400);
      assert.equal(right.body.error, "invalid_grant");
    });

    it("refuses a reused code and revokes the token the first exchange gave", async () => {
      const granted = await code();
      const first = await exchange(granted);
      assert.equal(first.status, 200);
      const again = await exchange(granted);
      assert.equal(again.status, 400);
      assert.equal(again.body.error, "invalid_grant");
      assert.match(String(again.body.error_description), /used before/);
      const refused = await micropubCreate(first.body.access_token as string);
      assert.equal(refused.status, 401);
      const refresh = await indieauth.refresh(first.body.refresh_token as string);
      assert.equal(refresh.body.error, "invalid_grant");
    });

    it("refuses an expired code (older than 10 minutes)", async () => {
      const granted = await code();
      const database = indieauth.server.host.database;
      assert.ok(database);
      // Ten minutes and a second later, as far as the code is concerned.
      await database.query(
        "UPDATE indieauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL",
      );
      const late = await exchange(granted);
      assert.equal(late.status, 400);
      assert.equal(late.body.error, "invalid_grant");
      assert.match(String(late.body.error_description), /expired/);
    });

    it("refuses a code presented with another client_id or redirect_uri", async () => {
      const forOther = await exchange(await code(), { client_id: "https://other.example/" });
      assert.equal(forOther.status, 400);
      assert.equal(forOther.body.error, "invalid_grant");
      const elsewhere = await exchange(await code(), { redirect_uri: `${indieauth.client.url}/other` });
      assert.equal(elsewhere.status, 400);
      assert.equal(elsewhere.body.error, "invalid_grant");
    });

    it("keeps only a hash of each code, and codes live at most 10 minutes", async () => {
      const granted = await code();
      const database = indieauth.server.host.database;
      assert.ok(database);
      const rows = await database.query<{ code_hash: string; expires_at: Date | string }>(
        "SELECT code_hash, expires_at FROM indieauth_codes WHERE used_at IS NULL",
      );
      assert.equal(rows.rows.length, 1);
      assert.notEqual(rows.rows[0]?.code_hash, granted.code);
      assert.ok(!JSON.stringify(rows.rows).includes(granted.code));
      const lifetime = new Date(rows.rows[0]?.expires_at as string).getTime() - Date.now();
      assert.ok(lifetime > 0 && lifetime <= 10 * 60_000, `lives ${lifetime} ms`);
    });

    it("answers invalid_request and unsupported_grant_type for malformed requests", async () => {
      const missing = await exchangeCode(token(), { grant_type: "authorization_code", code: "x" });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error, "invalid_request");
      const other = await exchangeCode(token(), { grant_type: "password", username: "a", password: "b" });
      assert.equal(other.status, 400);
      assert.equal(other.body.error, "unsupported_grant_type");
      const unknown = await exchangeCode(token(), {
        grant_type: "authorization_code",
        code: "not-a-code",
        client_id: indieauth.client.clientId,
        redirect_uri: indieauth.client.redirectUri,
        code_verifier: pkcePair().verifier,
      });
      assert.equal(unknown.body.error, "invalid_grant");
    });
  });
}
