// Decision 0054, over real HTTP: a feed added on the Feeds page with the site's Micropub endpoint
// (another possekit, behind a gate that counts what it is sent) and its token. A new entry is
// copied to a sandbox Mastodon and the copy's link reaches the site's post, with one update. The
// token is sealed in its row (never in the options, never in clear), never on the page, which
// says only when it was saved; an edit without a token keeps it, "forget" removes it. Bad input is
// refused in the reader's language with nothing saved: an endpoint without a token, a token
// without an endpoint, an endpoint that is no URL, a forged CSRF token; and, with fetch.allowPrivate
// off, an endpoint on a private address.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { closeAll, startTarget, type Target, until } from "../endpoint/endpoint-server.ts";
import { TestClock } from "../helpers/clock.ts";
import { engines, pgliteEngine } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { FeedSite, type SiteEntry } from "../sources/feeds/feed-site.ts";
import { type Remote, startRemote } from "../sources/remote-micropub.ts";
import { feedsForm, followFlash } from "./feeds-page-kit.ts";

const POLL_SECONDS = 300;

/** The page feed's row as the database holds it: the options as text, the token column. */
async function rawRow(database: Database | null | undefined) {
  assert.ok(database);
  const { rows } = await database.query<{ options: string; micropub_token: string | null; set_at: unknown }>(
    "SELECT options::text AS options, micropub_token, micropub_token_set_at AS set_at FROM page_feeds",
  );
  return rows;
}

for (const engine of engines)
  describe(`a page feed writes the copies' links back to its site (${engine.name})`, () => {
    const started = Date.now();
    const clock = new TestClock(started);
    let target: Target;
    let remote: Remote;
    let site: FeedSite;
    let plugin: EndpointSyndicate;
    let server: TestServer;
    let session: { cookie: string; csrf: string };
    let feedUrl: string;
    let day = 0;
    const post = (
      path: string,
      fields: Record<string, string | string[]>,
      headers?: Record<string, string>,
    ) => feedsForm(server.url, session, path, fields, headers);
    const page = async () => (await feedsForm(server.url, session, "", null)).text();

    /** A post on the site (its own possekit) and its entry, newest first in the feed. */
    async function publish(title: string): Promise<string> {
      const url = await remote.create(title, []);
      day += 1;
      const entry: SiteEntry = {
        id: url,
        url,
        title,
        content: `<p>${title}</p>`,
        published: new Date(started - 3_600_000 + day * 60_000).toISOString(),
      };
      site.entries = [entry, ...site.entries];
      return url;
    }

    before(async () => {
      target = await startTarget();
      remote = await startRemote();
      site = await new FeedSite("atom").start();
      feedUrl = `${site.url}/feed`;
      await publish("An old post");
      plugin = new EndpointSyndicate(
        {
          schedule: { enabled: true, whenLive: false },
          targets: { checkAtStart: false },
          retry: { baseMs: 100, maxMs: 400 },
        },
        { env: {}, now: clock.now },
      );
      server = await startTestServer({
        engine,
        config: { plugins: [], fetch: { allowPrivate: true } },
        plugins: [target.syndicator(), plugin],
      });
      session = await server.signIn();
    });
    after(async () => {
      await server?.close();
      await closeAll(site, remote, target);
    });

    it("refuses bad input in the reader's language, never shows a typed token again, and saves nothing", async () => {
      const base = { url: feedUrl, targets: [target.uid], pollSeconds: String(POLL_SECONDS) };
      const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
        [{ ...base, micropubEndpoint: remote.endpoint }, "de", /Geben Sie das Zugriffstoken von/],
        [
          { ...base, micropubToken: "typed-token-1234567890" },
          "fr",
          /Un jeton a besoin du point d’accès Micropub/,
        ],
        [
          { ...base, micropubEndpoint: "not an address", micropubToken: "typed-token-1234567890" },
          "en",
          /The Micropub endpoint must be an absolute http or https URL/,
        ],
      ];
      for (const [fields, language, words] of cases) {
        const answer = await post("", fields, { "accept-language": language });
        assert.equal(answer.status, 400, language);
        const html = await answer.text();
        assert.match(html, words);
        assert.ok(!html.includes("typed-token-1234567890"), "a typed token is not shown again");
      }
      const forged = await feedsForm(server.url, { ...session, csrf: "forged" }, "", {
        ...base,
        micropubEndpoint: remote.endpoint,
        micropubToken: remote.token,
      });
      assert.equal(forged.status, 403);
      assert.deepEqual(await rawRow(server.host.database), [], "nothing half-saved");
      assert.equal(plugin.feeds?.feeds.length, 0);
    });

    it("seals the token, shows only when it was saved, and writes a new copy's link to the site once", async () => {
      const added = await post("", {
        url: feedUrl,
        targets: [target.uid],
        pollSeconds: String(POLL_SECONDS),
        micropubEndpoint: remote.endpoint,
        micropubToken: remote.token,
      });
      assert.equal(added.status, 303);
      const shown = await (await followFlash(server.url, session, added)).text();
      assert.ok(!shown.includes(remote.token), "the token is not on the page");
      assert.match(shown, /data-secret="saved">Saved on /);
      assert.ok(shown.includes(`value="${remote.endpoint}"`), "the endpoint is shown");
      const [row] = await rawRow(server.host.database);
      assert.ok(row?.micropub_token && row.set_at);
      assert.ok(!row.options.includes(remote.token) && !row.micropub_token.includes(remote.token));
      assert.match(row.micropub_token, /^v1\./, "sealed with the secret box");
      assert.equal(target.sandbox.statuses.length, 0, "the first read sends nothing");

      const url = await publish("Herons at dawn");
      clock.advance(POLL_SECONDS * 1000);
      plugin.scheduler?.nudge();
      await until("the copy is made", () =>
        target.sandbox.statuses.some((status) => status.text.includes("Herons at dawn")),
      );
      const copy = target.sandbox.statuses.find((status) => status.text.includes("Herons at dawn"));
      await eventually("the link reaches the site", async () => {
        const syndication = (await remote.properties(url)).syndication;
        return syndication?.includes(copy?.url) ? true : undefined;
      });
      const updates = () => remote.gate.passed.filter((request) => request === `POST update ${url}`);
      // The gate records an update once the remote's answer has reached it, which may be after the
      // remote applied it and answered a read of the post (0 of 1 once in CI).
      await eventually("the update is answered", async () => (updates().length > 0 ? true : undefined));
      assert.equal(updates().length, 1);
      clock.advance(POLL_SECONDS * 1000);
      plugin.scheduler?.nudge();
      const feed = plugin.feeds?.feeds.find((candidate) => candidate.key === feedUrl);
      await eventually("read again", async () => {
        const report = await feed?.report();
        return report && (report.lastFetchAt?.getTime() ?? 0) >= clock.now() ? true : undefined;
      });
      assert.equal(updates().length, 1, "the link is written back once");
      assert.equal(target.sandbox.statuses.length, 1, "one copy");
    });

    it("keeps the token when an edit leaves it empty, and forgets it when asked", async () => {
      const id = (await page()).match(/id="feed-([^"]+)" class="feed"/)?.[1];
      assert.ok(id);
      const [before] = await rawRow(server.host.database);
      // As an API client (the session, JSON): the answer names the endpoint, never a token.
      const kept = await post(
        id,
        { targets: [target.uid], pollSeconds: "600", micropubEndpoint: remote.endpoint, micropubToken: "" },
        { accept: "application/json" },
      );
      assert.equal(kept.status, 200);
      const text = await kept.text();
      assert.ok(!text.includes(remote.token));
      assert.deepEqual((JSON.parse(text) as { options: { micropub?: unknown } }).options.micropub, {
        endpoint: remote.endpoint,
      });
      const [after] = await rawRow(server.host.database);
      assert.equal(after?.micropub_token, before?.micropub_token, "the saved token is kept");
      assert.match(after?.options ?? "", /"pollSeconds": ?600/);

      const forgotten = await post(id, {
        targets: [target.uid],
        pollSeconds: "600",
        micropubEndpoint: remote.endpoint,
        forgetMicropubToken: "yes",
      });
      assert.equal(forgotten.status, 303);
      const [gone] = await rawRow(server.host.database);
      assert.equal(gone?.micropub_token, null);
      assert.equal(gone?.set_at, null);
      assert.doesNotMatch(gone?.options ?? "", /micropub/, "no write-back left");
      assert.equal(plugin.feeds?.feeds.find((feed) => feed.key === feedUrl)?.writeBack, undefined);
    });
  });

describe("a page feed's Micropub endpoint on a private address", () => {
  let target: Target;
  let remote: Remote;
  let server: TestServer;

  before(async () => {
    target = await startTarget();
    remote = await startRemote();
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: ["@possekit/endpoint-syndicate"], fetch: { allowPrivate: false } },
      plugins: [target.syndicator()],
    });
  });
  after(async () => {
    await server?.close();
    await closeAll(remote, target);
  });

  for (const [language, words] of [
    ["en", /is on a private address \(127\.0\.0\.1\): links are written back only to a public address/],
    ["de", /liegt auf einer privaten Adresse \(127\.0\.0\.1\)/],
    ["fr", /est sur une adresse privée \(127\.0\.0\.1\)/],
  ] as const)
    it(`is refused before anything is fetched or saved (${language})`, async () => {
      const session = await server.signIn();
      const answer = await feedsForm(
        server.url,
        session,
        "",
        {
          url: "https://blog.example/feed.xml",
          targets: [target.uid],
          micropubEndpoint: remote.endpoint,
          micropubToken: remote.token,
        },
        { "accept-language": language },
      );
      assert.equal(answer.status, 400);
      const html = await answer.text();
      assert.match(html, words);
      assert.ok(!html.includes(remote.token));
      assert.deepEqual(await rawRow(server.host.database), []);
      assert.equal(remote.gate.passed.length, 0, "the endpoint was never asked");
    });
});
