// The Accounts page against a real Bluesky PDS (@atproto/pds with an in-memory PLC directory, both on
// 127.0.0.1): `possekit serve` runs with no Bluesky target in its config; the signed-in owner gives a
// handle and an app password on the page. The handle is resolved by the PDS, the DID's document read
// from the PLC directory, and createSession asked before anything is stored: a wrong app password is
// refused and nothing is kept; the right one connects at once (no restart) and a post is copied,
// read back from the PDS. Disconnecting ends possekit's session there (deleteSession). The server's
// whole log holds neither password.
// Run with `npm run test:interop` after `npm install --prefix interop/bluesky --no-audit --no-fund`.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { postAccountsForm } from "../../test/helpers/accounts-form.ts";
import { type ChildServer, startChildServer } from "../../test/helpers/child-server.ts";
import { type Account, type RealPds, startRealPds } from "./pds.ts";

const WRONG = "aaaa-bbbb-cccc-dddd";

describe("the Accounts page against a real PDS", () => {
  let pds: RealPds;
  let photos: PhotoServer;
  let server: ChildServer;
  let account: Account;
  let token: string;
  let session: { cookie: string; csrf: string };

  before(async () => {
    pds = await startRealPds();
    account = await pds.createAccount("carol");
    photos = await startPhotoServer();
    const secret = randomBytes(24).toString("base64url");
    server = await startChildServer({
      secret,
      config: {
        plugins: ["@possekit/endpoint-syndicate"],
        fetch: { allowPrivate: true },
        publication: { me: photos.url },
      },
      // Everything the server says, so that the log is searched for the passwords in full.
      env: { LOG_LEVEL: "debug" },
      startTimeoutMs: 180_000,
    });
    token = await new TokenIssuer(secret, `${photos.url}/`).issue({
      scope: ["create", "update"],
      clientId: "interop",
      lifetimeDays: 1,
    });
    session = await server.signIn();
  });
  after(async () => {
    await server?.stop();
    await photos?.close();
    await pds?.stop();
  });

  const connect = (password: string) =>
    postAccountsForm(server.url, session, "bluesky", {
      identifier: account.handle,
      password,
      entryway: pds.url,
      plcDirectory: pds.plcUrl,
    });
  const syndicateTo = async () => {
    const response = await fetch(`${server.url}/micropub?q=syndicate-to`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    return ((await response.json()) as { "syndicate-to": { uid: string }[] })["syndicate-to"].map(
      (t) => t.uid,
    );
  };
  const uid = () => `https://bsky.app/profile/${account.handle}`;

  it("refuses a wrong app password and keeps nothing", async () => {
    const answer = await connect(WRONG);
    assert.equal(answer.status, 400, server.output());
    assert.match(await answer.text(), /Bluesky refused the credentials\. Nothing was stored/);
    assert.deepEqual(await syndicateTo(), []);
  });

  it("connects with the right app password, and a post is copied at once", async () => {
    const answer = await connect(account.appPassword);
    assert.equal(answer.status, 303, server.output());
    assert.deepEqual(await syndicateTo(), [uid()]);

    const created = await fetch(`${server.url}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        type: ["h-entry"],
        properties: { content: ["Connected from the Accounts page"], "mp-syndicate-to": [uid()] },
      }),
    });
    assert.equal(created.status, 201, await created.text());
    const post = created.headers.get("location") ?? "";
    const sent = await fetch(`${server.url}/syndicate?source_url=${encodeURIComponent(post)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    const result = (await sent.json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    const records = await pds.listRecords(account.did, "app.bsky.feed.post");
    assert.equal(records.length, 1);
    assert.match(records[0]?.value.text ?? "", /^Connected from the Accounts page/);
  });

  it("disconnects: the target is gone at once, and the page says what to revoke by hand", async () => {
    const page = await (
      await fetch(`${server.url}/syndicate/accounts`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      })
    ).text();
    const id = /action="\/syndicate\/accounts\/([0-9a-f-]{36})\/disconnect"/.exec(page)?.[1];
    assert.ok(id, "the page offers to disconnect the account");
    const gone = await fetch(`${server.url}/syndicate/accounts/${id}/disconnect`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: session.csrf }),
    });
    assert.equal(gone.status, 200);
    const said = (await gone.json()) as { revoked: boolean; by_hand: string };
    assert.equal(said.revoked, true, "the PDS ended possekit's session");
    assert.match(said.by_hand, /Delete the app password/);
    assert.deepEqual(await syndicateTo(), []);
  });

  it("logged neither password", () => {
    const log = server.output();
    assert.ok(!log.includes(account.appPassword));
    assert.ok(!log.includes(WRONG));
  });
});
