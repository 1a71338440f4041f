// application.indieauth's lifetimes at values other than their defaults (7 and 90 days): the access
// token lives accessTokenDays, the refresh token refreshTokenDays, and the access token's row keeps
// the grant's revocation for as long as that refresh token lives (grant-store.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeJwt } from "jose";
import { engines } from "../helpers/databases.ts";
import { signedInClient } from "./signed-in-client.ts";

const DAY = 86_400_000;

for (const engine of engines) {
  describe(`token lifetimes as configured (${engine.name})`, () => {
    const indieauth = signedInClient({
      engine,
      config: { application: { indieauth: { accessTokenDays: 2, refreshTokenDays: 30 } } },
    });
    /** When the refresh token's row and the access token's row expire, in days from now. */
    const lifetimes = async (accessToken: string) => {
      const database = indieauth.server.host.database;
      assert.ok(database);
      const id = decodeJwt(accessToken).jti as string;
      const refresh = await database.query<{ expires_at: Date | string }>(
        "SELECT expires_at FROM indieauth_refresh_tokens WHERE access_token_id = $1",
        [id],
      );
      const access = await database.query<{ keep_until: Date | string }>(
        "SELECT keep_until FROM access_tokens WHERE id = $1",
        [id],
      );
      const days = (value: Date | string | undefined) =>
        value === undefined ? undefined : Math.round((new Date(value).getTime() - Date.now()) / DAY);
      return { refresh: days(refresh.rows[0]?.expires_at), keep: days(access.rows[0]?.keep_until) };
    };

    it("issues a code's tokens and a refresh's tokens with the configured days", async () => {
      const first = await indieauth.tokens();
      const firstExpires = Number(decodeJwt(first.access_token).exp) * 1000 - Date.now();
      assert.ok(firstExpires > 1.9 * DAY && firstExpires <= 2 * DAY, `access token: ${firstExpires} ms`);
      assert.deepEqual(await lifetimes(first.access_token), { refresh: 30, keep: 30 });

      const second = await indieauth.refresh(first.refresh_token);
      assert.equal(second.status, 200);
      const expiresIn = Number(second.body.expires_in);
      assert.ok(expiresIn > 1.9 * 86_400 && expiresIn <= 2 * 86_400, `expires_in ${expiresIn}`);
      assert.deepEqual(await lifetimes(second.body.access_token as string), { refresh: 30, keep: 30 });
    });
  });
}
