// Decision 0039: possekit (a child process, as a user runs it) reads a site's feed, copies its
// newest entry (backfill 1) to Mastodon, and dies with SIGKILL while the write-back of the copy's
// link hangs at the site's Micropub endpoint: the copy exists, the site never heard of it.
// Restarted on the same embedded database, with no request at all, it writes the link back there
// once, and never makes a second copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ENDPOINT_PACKAGE, MASTODON_PACKAGE } from "../../scale/cluster.ts";
import { type CrashWorld, startCrashWorld } from "../write-back-crash.ts";
import { FeedSite } from "./feed-site.ts";

describe("SIGKILL between a feed entry's copy and its write-back to the site's Micropub endpoint", () => {
  let world: CrashWorld | undefined;
  let site: FeedSite | undefined;
  before(async () => {
    world = await startCrashWorld();
    site = await new FeedSite("rss").start();
  });
  after(async () => {
    await world?.close();
    await site?.close();
  });

  it("the copy is made once, and the link reaches the site after the restart", async () => {
    const { sandbox, remote } = world as CrashWorld;
    const feed = site as FeedSite;
    const title = "Spoonbills at the lagoon";
    const url = await remote.create(title, []);
    const published = new Date(Date.now() - 3_600_000).toISOString();
    feed.entries = [{ id: url, url, title, content: `<p>${title}</p>`, published }];
    const config = {
      fetch: { allowPrivate: true },
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      [ENDPOINT_PACKAGE]: {
        schedule: { enabled: true, whenLive: false, maxSleepMs: 500 },
        feeds: [
          {
            url: `${feed.url}/feed`,
            targets: [sandbox.uid],
            backfill: 1,
            micropub: { endpoint: remote.endpoint, tokenEnv: "SITE_TOKEN" },
          },
        ],
      },
      [MASTODON_PACKAGE]: { url: sandbox.mastodon.url, user: sandbox.mastodon.user },
    };
    const env = { MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken, SITE_TOKEN: remote.token };
    await (world as CrashWorld).killMidWriteBackAndRestart(config, env, url);
    assert.deepEqual((await remote.properties(url)).syndication, [sandbox.mastodon.statuses[0]?.url]);
    assert.equal(sandbox.mastodon.statuses.length, 1, "never a second copy");
    const updates = remote.gate.passed.filter((request) => request.startsWith("POST"));
    assert.deepEqual(updates, [`POST update ${url}`], "one update, no more");
  });
});
