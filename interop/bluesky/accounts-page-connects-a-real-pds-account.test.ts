// The Accounts page against a real Bluesky PDS (@atproto/pds with an in-memory PLC directory, both on
// 127.0.0.1): `possekit serve` runs with no Bluesky target in its config; the signed-in owner gives a
// handle and an app password on the page. The handle is resolved by the PDS, the DID's document read
// from the PLC directory, and createSession asked before anything is stored: a wrong app password is
// refused and nothing is kept; the right one connects at once (no restart) and a post is copied,
// read back from the PDS. Disconnecting ends possekit's session there (deleteSession). The server's
// whole log holds neither password.
// Run with `npm run test:interop` after `npm install --prefix interop/bluesky --no-audit --no-fund`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type PhotoServer, startPhotoServer } from "../../test/fakes/photo-server.ts";
import { postAccountsForm } from "../../test/helpers/accounts-form.ts";
import type { ChildServer } from "../../test/helpers/child-server.ts";
import { type Account, type RealPds, startRealPds } from "./pds.ts";
import { createPostAt, type Possekit, startPossekit, syndicateAt } from "./possekit-beside-the-pds.ts";

const WRONG = "aaaa-bbbb-cccc-dddd";

describe("the Accounts page against a real PDS", () => {
  let pds: RealPds;
  let photos: PhotoServer;
  let possekit: Possekit;
  let server: ChildServer;
  let account: Account;
  let session: { cookie: string; csrf: string };

  before(async () => {
    pds = await startRealPds();
    account = await pds.createAccount("carol");
    photos = await startPhotoServer();
    // Everything the server says, so that the log is searched for the passwords in full.
    possekit = await startPossekit(
      photos,
      { plugins: ["@possekit/endpoint-syndicate"] },
      { LOG_LEVEL: "debug" },
    );
    server = possekit.server;
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
      headers: { authorization: `Bearer ${possekit.token}`, accept: "application/json" },
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

    const post = await createPostAt(possekit, { content: ["Connected from the Accounts page"] }, uid());
    const result = await syndicateAt(possekit, `?source_url=${encodeURIComponent(post)}`);
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
