// The Status page makes a token with the scopes ticked and the lifetime chosen: one with `delete`
// deletes a post through Micropub (the page's token once had only create and update and got 401
// insufficient_scope), and revoking it there refuses it at the very next request. A form with no
// scope or a lifetime not offered gets the page again saying what to change, in the reader's
// language, and no token.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { engines } from "../helpers/databases.ts";
import { makeTokenOnStatus } from "../helpers/status-token.ts";
import { errorOf, type MicropubServer, startMicropubServer } from "../micropub/micropub-server.ts";
import { browser } from "./pages.ts";

const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;

for (const engine of engines) {
  describe(`Status makes the token asked for (${engine.name})`, () => {
    let mp: MicropubServer;
    let session: { cookie: string; csrf: string };
    before(async () => {
      mp = await startMicropubServer(engine);
      session = await mp.server.signIn();
    });
    after(() => mp.close());

    const listedIds = async () => {
      const html = await (
        await fetch(`${mp.server.url}/status`, { headers: browser({ cookie: session.cookie }) })
      ).text();
      return [...html.matchAll(/<tr data-token-id="([^"]+)">/g)].map((match) => match[1]);
    };

    it("offers every scope the server knows, and lifetimes around the configured one", async () => {
      const html = await (
        await fetch(`${mp.server.url}/status`, { headers: browser({ cookie: session.cookie }) })
      ).text();
      const offered = [...html.matchAll(/<input type="checkbox" name="scope" value="(\w+)"/g)].map(
        (m) => m[1],
      );
      assert.deepEqual(offered, ["create", "update", "delete", "draft", "media"]);
      const days = [...html.matchAll(/<option value="(\d+)"( selected)?>/g)].map(
        (m) => `${m[1]}${m[2] ?? ""}`,
      );
      assert.deepEqual(days, ["1", "7", "30", "90 selected", "365"]);
    });

    it("makes a delete token that deletes a post through Micropub, refused at once once revoked", async () => {
      const url = await mp.create({ content: ["Delete me from the page's token"] });
      const made = await makeTokenOnStatus(mp.server.url, session, { scope: ["delete"], days: 7 });
      assert.equal(made.response.status, 201);
      assert.ok(made.token);
      const claims = decodeJwt(made.token);
      assert.equal(claims.scope, "delete");
      assert.equal(Math.round(((claims.exp ?? 0) - (claims.iat ?? 0)) / 86_400), 7);
      assert.match(made.html, /Your new token \(scope: delete, valid for 7 days\)\. Copy it now/);

      const deleted = await mp.postJson({ action: "delete", url }, made.token);
      assert.equal(deleted.status, 204, await deleted.clone().text());
      assert.equal((await mp.server.host.posts?.findByUrl(url))?.deleted, true);

      const id = String(claims.jti);
      const revoke = await fetch(`${mp.server.url}/status/tokens/revoke`, {
        method: "POST",
        headers: browser({ cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" }),
        body: new URLSearchParams({ id, _csrf: session.csrf }),
        redirect: "manual",
      });
      assert.equal(revoke.status, 303);
      const refused = await errorOf(await mp.postJson({ action: "undelete", url }, made.token));
      assert.equal(refused.status, 401);
      assert.equal(refused.description, "The access token has been revoked");
      assert.equal((await mp.server.host.posts?.findByUrl(url))?.deleted, true, "nothing undeleted");
      const listed = await (
        await fetch(`${mp.server.url}/status`, { headers: browser({ cookie: session.cookie }) })
      ).text();
      assert.match(listed, new RegExp(`data-grant-id="[^"]+" data-revoked>\\s*<tr data-token-id="${id}">`));
    });

    it("answers a form with no scope or an unoffered lifetime with the page saying what to change, in en/de/fr", async () => {
      const before = await listedIds();
      const cases = [
        {
          language: "en",
          scope: [],
          days: 90,
          says: /Tick at least one scope, and choose a lifetime of 1, 7, 30, 90, 365 days\./,
        },
        { language: "de", scope: ["create"], days: 3651, says: /Kreuze mindestens eine Berechtigung an/ },
        { language: "fr", scope: ["everything"], days: 7, says: /Cochez au moins une portée/ },
        { language: "en", scope: ["create"], days: "ninety", says: /Tick at least one scope/ },
      ];
      for (const { language, scope, days, says } of cases) {
        const made = await makeTokenOnStatus(mp.server.url, session, {
          scope,
          days,
          headers: { "accept-language": language },
        });
        assert.equal(made.response.status, 400, `${language} ${scope} ${days}`);
        assert.match(made.html, says);
        assert.match(made.html, new RegExp(`<html lang="${language}"`));
        assert.doesNotMatch(made.html, JWT, "no token");
      }
      assert.deepEqual(await listedIds(), before, "no token made");
    });

    it("names the new token's parts in German and French", async () => {
      const de = await makeTokenOnStatus(mp.server.url, session, {
        scope: ["create", "media"],
        days: 30,
        headers: { "accept-language": "de" },
      });
      assert.match(de.html, /Dein neues Token \(Berechtigungen: create media, gültig für 30 Tage\)/);
      assert.match(de.html, /<option value="30" selected>30 Tage<\/option>/);
      const fr = await makeTokenOnStatus(mp.server.url, session, {
        scope: ["draft"],
        days: 1,
        headers: { "accept-language": "fr" },
      });
      assert.match(fr.html, /Votre nouveau jeton \(portée\u202f: draft, valable 1 jour\)/);
      assert.match(fr.html, /<option value="1" selected>1 jour<\/option>/);
    });
  });
}
