// Decision 0054: the Feeds page fetches a stranger's address, so it keeps the rule every feed read
// keeps (src/net/safe-fetch.ts): with `fetch.allowPrivate` off, a home page or feed on a private or
// local address is refused before any request reaches it, in the reader's language, and nothing is
// saved. The site here is on 127.0.0.1 and counts the requests it gets: none.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeAll, startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { FeedSite } from "../sources/feeds/feed-site.ts";
import { feedsForm, homePage, pageFeedRows } from "./feeds-page-kit.ts";

describe("the Feeds page and a private address", () => {
  let site: FeedSite;
  let target: Target;
  let server: TestServer;
  let session: { cookie: string; csrf: string };

  before(async () => {
    site = await new FeedSite("atom").start();
    site.answers.set("/", homePage(`${site.url}/feed`));
    target = await startTarget();
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: ["@possekit/endpoint-syndicate"], fetch: { allowPrivate: false } },
      plugins: [target.syndicator()],
    });
    session = await server.signIn();
  });
  after(async () => {
    await server?.close();
    await closeAll(site, target);
  });

  for (const [language, words] of [
    ["en", /is on a private or local network address/],
    ["de", /liegt auf einer privaten oder lokalen Netzwerkadresse/],
    ["fr", /est sur une adresse de réseau privé ou local/],
  ] as const)
    it(`refuses to look at a home page on 127.0.0.1 (${language})`, async () => {
      const answer = await feedsForm(
        server.url,
        session,
        "discover",
        { url: `${site.url}/` },
        {
          "accept-language": language,
        },
      );
      assert.equal(answer.status, 400);
      assert.match(await answer.text(), words);
      assert.equal(site.requests.length, 0, "no request reached the address");
    });

  it("refuses to add a feed on 127.0.0.1, and saves nothing", async () => {
    const answer = await feedsForm(server.url, session, "", {
      url: `${site.url}/feed`,
      targets: [target.uid],
    });
    assert.equal(answer.status, 400);
    assert.match(await answer.text(), /is on a private or local network address/);
    const json = await feedsForm(
      server.url,
      session,
      "",
      { url: `${site.url}/feed`, targets: [target.uid] },
      {
        accept: "application/json",
      },
    );
    assert.equal(json.status, 400);
    const body = (await json.json()) as { error: string; error_description: string };
    assert.equal(body.error, "invalid_request");
    assert.match(body.error_description, /private or local network address/);
    assert.equal(site.requests.length, 0);
    assert.deepEqual(await pageFeedRows(server), []);
  });
});
