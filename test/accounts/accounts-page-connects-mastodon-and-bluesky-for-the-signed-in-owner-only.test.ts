// The Accounts page as a browser without JavaScript uses it: the signed-in owner pastes a Mastodon
// token (checked with verify_credentials first) or gives a Bluesky handle and app password (handle →
// DID → PDS → createSession first, against the Bluesky fake); a refused credential stores nothing;
// a connected account is a target at once and its first copy goes out through POST /syndicate;
// disconnecting ends the Bluesky session (deleteSession) and takes the target out at once. Only a
// signed-in session may connect: a bearer token of any scope gets 403, a POST without the CSRF
// token 403. The log of the whole exchange holds none of the secrets. A connected Bluesky account's
// thread settings, saved on the page, make a long post's preview a thread (decision 0058).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { ACCOUNT_TYPE_NAMES } from "../../src/contract/accounts.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { closeAll, type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { pgliteEngine } from "../helpers/databases.ts";

const APP_PASSWORD = "abcd-efgh-ijkl-mnop";

describe("the Accounts page", () => {
  let mastodon: MastodonSandbox;
  let pds: FakePds;
  let app: EndpointServer;
  let session: { cookie: string; csrf: string };
  const mastodonToken = `tok-${randomBytes(12).toString("hex")}`;
  const logged: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);

  before(async () => {
    mastodon = await startMastodonSandbox({ accessToken: mastodonToken, user: "alice" });
    pds = await startFakePds({
      handle: "alice.test",
      password: APP_PASSWORD,
      did: "did:plc:aliceaccountconnect0001",
    });
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      config: { fetch: { allowPrivate: true } },
      env: {},
    });
    session = await app.server.signIn();
    // Everything the server logs from here on, to look for secrets in it.
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (writeErr as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
  });
  after(async () => {
    process.stdout.write = write;
    process.stderr.write = writeErr;
    await app?.close();
    await closeAll({ sandbox: mastodon }, pds);
  });

  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/syndicate/accounts${path}`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
      redirect: "manual",
    });
  const page = async () => {
    const response = await fetch(`${app.url}/syndicate/accounts`, {
      headers: { cookie: session.cookie, accept: "text/html" },
    });
    assert.equal(response.status, 200);
    return response.text();
  };
  const syndicateTo = async () => {
    const response = await fetch(`${app.url}/micropub?q=syndicate-to`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    return ((await response.json()) as { "syndicate-to": { uid: string }[] })["syndicate-to"].map(
      (t) => t.uid,
    );
  };
  const rows = async () =>
    (await app.server.host.database?.query("SELECT uid FROM connected_accounts"))?.rows.length ?? 0;

  it("shows every type as not connected on a server with no targets", async () => {
    const html = await page();
    for (const heading of [
      "Mastodon",
      "Bluesky",
      "Micropub",
      "Internet Archive",
      "Threads",
      "LinkedIn",
      "Nostr",
    ])
      assert.match(html, new RegExp(heading));
    assert.equal((html.match(/data-account-state="none"/g) ?? []).length, ACCOUNT_TYPE_NAMES.length);
    // The package's entry mounts Mastodon's OAuth flow, so its form is shown above the token form.
    assert.match(
      html,
      /action="\/syndicate\/accounts\/mastodon\/authorize"/,
      "the OAuth form, its route mounted",
    );
  });

  it("refuses a bearer token of any scope, and a session POST without its CSRF token", async () => {
    for (const scope of ["create update delete media", "create"]) {
      const token = await app.server.token(scope);
      const get = await fetch(`${app.url}/syndicate/accounts`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(get.status, 403);
      const connect = await fetch(`${app.url}/syndicate/accounts/mastodon`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({ instance: mastodon.url, accessToken: mastodonToken }),
      });
      assert.equal(connect.status, 403);
    }
    const forged = await fetch(`${app.url}/syndicate/accounts/mastodon`, {
      method: "POST",
      headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ instance: mastodon.url, accessToken: mastodonToken }),
      redirect: "manual",
    });
    assert.notEqual(forged.status, 303);
    assert.ok(forged.status >= 400);
    assert.equal(await rows(), 0);
  });

  it("refuses a wrong Mastodon token and stores nothing", async () => {
    const response = await post("/mastodon", { instance: mastodon.url, accessToken: "not-the-token" });
    assert.equal(response.status, 400);
    const html = await response.text();
    assert.match(html, /refused the credentials\. Nothing was stored/);
    assert.ok(!html.includes("not-the-token"), "a secret is never rendered back");
    const json = await post(
      "/mastodon",
      { instance: mastodon.url, accessToken: "not-the-token" },
      { accept: "application/json" },
    );
    assert.equal(json.status, 400);
    const body = (await json.json()) as { error: string; error_description: string };
    assert.equal(body.error, "invalid_request");
    assert.match(body.error_description, /refused the access token \(401\)/);
    assert.equal(await rows(), 0);
  });

  it("never lets a token follow a redirect to another origin", async () => {
    // An "instance" that sends verify_credentials elsewhere, and the elsewhere that records who came.
    const seen: (string | undefined)[] = [];
    const elsewhere = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { "content-type": "application/json" }).end('{"username":"mallory"}');
    });
    const redirecting = createServer((_request, response) => {
      const { port } = elsewhere.address() as AddressInfo;
      response
        .writeHead(302, { location: `http://127.0.0.1:${port}/api/v1/accounts/verify_credentials` })
        .end();
    });
    await Promise.all(
      [elsewhere, redirecting].map(
        (server) => new Promise<void>((done) => server.listen(0, "127.0.0.1", done)),
      ),
    );
    try {
      const { port } = redirecting.address() as AddressInfo;
      const response = await post("/mastodon", {
        instance: `http://127.0.0.1:${port}`,
        accessToken: mastodonToken,
      });
      assert.equal(response.status, 400);
      assert.deepEqual(seen, [], "the redirect was not followed");
      assert.equal(await rows(), 0);
    } finally {
      await Promise.all([elsewhere, redirecting].map((server) => new Promise((done) => server.close(done))));
    }
  });

  it("connects a pasted Mastodon token, lists it at once, and copies a post to it", async () => {
    const response = await post("/mastodon", { instance: mastodon.url, accessToken: mastodonToken });
    assert.equal(response.status, 303);
    const uid = `${mastodon.url}/@alice`;
    assert.deepEqual(await syndicateTo(), [uid]);
    const html = await page();
    assert.match(html, /Connected as @alice@/);
    assert.match(html, /Access token set on/);
    assert.ok(!html.includes(mastodonToken));
    const created = await app.createPost({ content: "First copy from a connected account", targets: [uid] });
    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(created)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.equal(mastodon.statuses.length, 1);
  });

  const bluesky = (password: string, extra: Record<string, string> = {}) =>
    post("/bluesky", {
      identifier: "alice.test",
      password,
      entryway: pds.url,
      plcDirectory: pds.url,
      ...extra,
    });

  it("refuses a wrong Bluesky app password after resolving the account, and stores nothing", async () => {
    const before = await rows();
    const response = await bluesky("wxyz-wxyz-wxyz-wxyz");
    assert.equal(response.status, 400);
    assert.match(await response.text(), /Bluesky refused the credentials/);
    assert.equal(await rows(), before);
    assert.ok(
      pds.calls.some((call) => call.nsid === "com.atproto.identity.resolveHandle" && call.status === 200),
    );
    assert.ok(
      pds.calls.some((call) => call.nsid === "com.atproto.server.createSession" && call.status === 401),
    );
  });

  it("asks for confirmation of a password not shaped like an app password, before asking Bluesky", async () => {
    const sessionsBefore = pds.calls.filter(
      (call) => call.nsid === "com.atproto.server.createSession",
    ).length;
    const response = await bluesky("my account password");
    assert.equal(response.status, 400);
    const html = await response.text();
    assert.match(html, /does not look like an app password/);
    assert.match(html, /name="confirmed" value="yes"/);
    assert.equal(
      pds.calls.filter((call) => call.nsid === "com.atproto.server.createSession").length,
      sessionsBefore,
    );
  });

  it("connects with the right app password, copies a post, and disconnecting ends the session", async () => {
    const response = await bluesky(APP_PASSWORD);
    assert.equal(response.status, 303);
    const uid = "https://bsky.app/profile/alice.test";
    assert.ok((await syndicateTo()).includes(uid));
    const created = await app.createPost({ content: "Hello Bluesky from the page", targets: [uid] });
    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(created)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.equal(pds.records.length, 1);

    const account = await app.server.host.accounts?.byUid(uid);
    assert.ok(account);
    // Its thread settings (decision 0058): saved on the page, the preview of a long post is a thread.
    const threads = await post(`/${account.id}/thread`, {
      thread: "on",
      threadMax: "3",
      threadPermalink: "first",
    });
    assert.equal(threads.status, 303);
    const paragraph = "Herons on the canal, cormorants on the posts, a kingfisher on the lock gate. ".repeat(
      3,
    );
    const long = await app.createPost({
      content: [1, 2, 3].map((n) => `${n}: ${paragraph}`).join("\n\n"),
      targets: [uid],
    });
    const preview = await fetch(`${app.url}/syndicate/preview?url=${encodeURIComponent(long)}`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    const shown = (await preview.json()) as { targets: { preview: { thread?: unknown[] } }[] };
    assert.equal(shown.targets[0]?.preview.thread?.length, 3, "a thread of three posts on Bluesky");
    const gone = await post(`/${account.id}/disconnect`, {});
    assert.equal(gone.status, 303);
    assert.equal(pds.deletedSessions.length, 1);
    assert.ok(!(await syndicateTo()).includes(uid));
    // The flash rides on a cookie to the page the browser is sent back to.
    const flash = gone.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
    const html = await fetch(`${app.url}/syndicate/accounts`, {
      headers: { cookie: [session.cookie, ...flash].join("; "), accept: "text/html" },
    });
    assert.match(await html.text(), /Delete the app password of @alice\.test/);
  });

  const secrets = () => [mastodonToken, APP_PASSWORD, "not-the-token", "wxyz-wxyz-wxyz-wxyz"];

  it("logged none of the secrets, and /health shows none", async () => {
    const all = logged.join("");
    for (const secret of secrets()) assert.ok(!all.includes(secret), `the log holds ${secret}`);
    const health = await (await fetch(`${app.url}/health`)).text();
    for (const secret of secrets()) assert.ok(!health.includes(secret), `/health holds ${secret}`);
  });

  it("keeps none of the secrets in clear anywhere in the database", async () => {
    const database = app.server.host.database;
    assert.ok(database);
    const { rows: tables } = await database.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    assert.ok(tables.some((table) => table.name === "connected_accounts"));
    let dump = "";
    for (const { name } of tables) {
      const { rows } = await database.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
      );
      dump += rows.map((row) => row.row).join("\n");
    }
    assert.ok(dump.includes(`${mastodon.url}/@alice`), "the dump holds the accounts");
    for (const secret of secrets()) assert.ok(!dump.includes(secret), `the database holds ${secret}`);
  });
});
