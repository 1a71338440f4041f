// Micropub and Internet Archive targets connected at run time: another possekit's Micropub endpoint
// with a token it issued (checked with q=config before anything is stored; a token it refuses stores
// nothing), then a post copied there; Internet Archive keys checked against the Save Page Now fake
// (wrong keys refused, the right ones connected and a capture made).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AccountError } from "../../src/contract/accounts.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { type FakeArchive, startFakeArchive } from "../fakes/internet-archive.ts";
import { postAccountsForm } from "../helpers/accounts-form.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("Micropub and Internet Archive accounts", () => {
  let other: TestServer;
  let archive: FakeArchive;
  let app: EndpointServer;
  let session: { cookie: string; csrf: string };
  before(async () => {
    other = await startTestServer({
      config: {
        plugins: [],
        publication: { me: "https://other.example/", postUrlPattern: "{me}copies/{slug}/" },
      },
    });
    archive = await startFakeArchive({ accessKey: "ia-access", secretKey: "ia-secret", pendingPolls: 0 });
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      config: { fetch: { allowPrivate: true } },
    });
    session = await app.server.signIn();
  });
  after(async () => {
    await app?.close();
    await other?.close();
    await archive?.close();
  });

  const connectMicropub = (accessToken: string) =>
    postAccountsForm(app.url, session, "micropub", {
      micropubEndpoint: `${other.url}/micropub`,
      accessToken,
      name: "My other site",
    });
  const accounts = () => {
    assert.ok(app.server.host.accounts);
    return app.server.host.accounts;
  };

  it("refuses a token the other site does not accept, and stores nothing", async () => {
    const answer = await connectMicropub("not-a-token-of-that-site");
    assert.equal(answer.status, 400);
    assert.match(await answer.text(), /refused the credentials/);
    assert.deepEqual(await accounts().list(), []);
  });

  it("connects the other site's endpoint and copies a post there", async () => {
    const answer = await connectMicropub(await other.token("create"));
    assert.equal(answer.status, 303);
    const [account] = await accounts().list();
    assert.equal(account?.uid, `${other.url}/micropub`);
    const post = await app.createPost({ content: "Copied to the other site", targets: [account?.uid ?? ""] });
    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(post)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.match(result.targets[0]?.url ?? "", /^https:\/\/other\.example\/copies\//);
  });

  it("checks Internet Archive keys with the archive before keeping them", async () => {
    const signal = AbortSignal.timeout(30_000);
    await assert.rejects(
      accounts().connect(
        "internet-archive",
        { accessKey: "ia-access", secretKey: "wrong", serviceUrl: archive.url },
        { signal },
      ),
      (error: AccountError) => error instanceof AccountError && error.key === "refused",
    );
    assert.equal((await accounts().list()).length, 1);
    const connected = await accounts().connect(
      "internet-archive",
      { accessKey: "ia-access", secretKey: "ia-secret", serviceUrl: archive.url },
      { signal },
    );
    assert.equal(connected.uid, `${archive.url}/`);
    const post = await app.createPost({ content: "Archived", targets: [connected.uid] });
    const result = (await (
      await app.syndicate(`?source_url=${encodeURIComponent(post)}`)
    ).json()) as PostResult;
    assert.equal(result.status, "syndicated", JSON.stringify(result.targets));
    assert.equal(archive.captures.length, 1);
  });
});
