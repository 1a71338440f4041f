// Two instances of the server sharing one database (as on PostgreSQL behind a load balancer): a feed
// added on the Feeds page of one is read by the other from its next turn (the scheduler's
// pollIfDue, called here instead of waiting for it), with the options saved; removed on the first,
// the other reads it no more.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { FeedSite } from "../sources/feeds/feed-site.ts";
import { feedsForm } from "./feeds-page-kit.ts";

const feedsOf = (app: EndpointServer) => {
  const plugin = app.server.host.plugins.find((p): p is EndpointSyndicate => p instanceof EndpointSyndicate);
  assert.ok(plugin?.feeds, "the endpoint runs its feeds");
  return plugin.feeds;
};

describe("instances sharing a database and the Feeds page", () => {
  let site: FeedSite;
  let target: Target;
  let first: EndpointServer;
  let second: EndpointServer;
  before(async () => {
    site = await new FeedSite("rss").start();
    target = await startTarget();
    const config = { fetch: { allowPrivate: true } };
    const pluginOptions = { schedule: { enabled: false }, targets: { checkAtStart: false } };
    first = await startEndpointServer({ engine: pgliteEngine, targets: [target], config, pluginOptions });
    const database = first.server.host.database;
    assert.ok(database);
    second = await startEndpointServer({
      engine: pgliteEngine,
      targets: [target],
      config,
      pluginOptions,
      database,
    });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await closeAll(site, target);
  });

  it("the other instance reads a feed added on one from its next turn, and stops when it is removed", async () => {
    const session = await first.server.signIn();
    const feedUrl = `${site.url}/feed`;
    const added = await feedsForm(first.url, session, "", {
      url: feedUrl,
      targets: [target.uid],
      pollSeconds: "900",
    });
    assert.equal(added.status, 303);
    assert.deepEqual(
      feedsOf(second).feeds.map((feed) => feed.key),
      [],
      "not before its next turn",
    );
    await feedsOf(second).pollIfDue();
    const read = feedsOf(second).find(feedUrl);
    assert.equal(read?.feed.pollSeconds, 900, "with the options saved on the first");
    assert.deepEqual(read?.feed.targets, [target.uid]);

    const page = await (await feedsForm(first.url, session, "", null)).text();
    const id = page.match(/id="feed-([^"]+)" class="feed"/)?.[1];
    assert.ok(id);
    assert.equal((await feedsForm(first.url, session, `${id}/remove`, {})).status, 303);
    await feedsOf(second).pollIfDue();
    assert.equal(feedsOf(second).find(feedUrl), undefined, "removed on the other too");
  });
});
