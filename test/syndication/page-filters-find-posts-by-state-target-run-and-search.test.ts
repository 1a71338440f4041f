// The Syndicate page's filters (decision 0023), against the database: by state (awaiting, needing
// attention, waiting, all), by target, by the run that touched a post, and by words of the title or
// the URL, however the URL is written (no trailing slash, a query string, www.). Summaries count the
// posts a run skipped (item 4).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Post } from "../../src/contract/posts.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { engines } from "../helpers/databases.ts";
import { collect, openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const good = "https://social.example/@me";
const refusing = "https://refuses.example/@me";
const gone = "https://gone.example/@me";

for (const engine of engines) {
  describe(`the page's filters find posts by state, target, run and words (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    let sent: Post;
    let refused: Post;
    let unconfigured: Post;
    let pending: Post;
    let runId: string;
    const find = async (filter: Parameters<SyndicationFixture["syndication"]["reads"]["findPosts"]>[0]) => {
      const page = await fixture.syndication.reads.findPosts(filter, { offset: 0, limit: 50 });
      assert.equal(page.total, page.ids.length);
      return page.ids;
    };

    before(async () => {
      const refuser = new TestTarget(refusing, {
        behaviour: () => {
          throw new SyndicationError("Refuses: 401 The access token is invalid", {
            status: 401,
            permanent: true,
          });
        },
      });
      fixture = await openSyndication(engine, [new TestTarget(good), refuser]);
      sent = await fixture.createPost("2024-01-01T00:00:00Z", [good], { name: "Walking by the river" });
      refused = await fixture.createPost("2024-01-02T00:00:00Z", [good, refusing], {
        content: "A heron that would not move",
      });
      unconfigured = await fixture.createPost("2024-01-03T00:00:00Z", [gone]);
      const { summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      // sent: syndicated; refused: partial; unconfigured: not walked (it names no configured target).
      assert.deepEqual(summary, { posts: 2, syndicated: 1, partial: 1, failed: 0, skipped: 0 });
      runId = (await fixture.syndication.reads.recentRuns(1))[0]?.id ?? "";
      pending = await fixture.createPost("2024-01-04T00:00:00Z", [good]);
    });
    after(() => fixture.close());

    it("counts a post the next run skips (its target refused) as skipped, not as nothing", async () => {
      const { results, summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      const skipped = results.filter(
        (result) =>
          result.status === "unchanged" && result.targets.some((target) => target.status === "skipped"),
      );
      assert.ok(
        skipped.some((result) => result.url === refused.url),
        "the refused post was skipped",
      );
      assert.equal(summary.skipped, skipped.length);
      assert.equal(summary.syndicated, 1, "the new post was sent");
      assert.equal(summary.posts, summary.syndicated + summary.partial + summary.failed + summary.skipped);
      const [latest] = await fixture.syndication.reads.recentRuns(1);
      assert.equal(latest?.summary.skipped, skipped.length, "the run's record says so too");
      pending = (await fixture.posts.findByUrl(pending.url)) ?? pending;
    });

    it("filters by state", async () => {
      const fresh = await fixture.createPost("2024-01-05T00:00:00Z", [good]);
      // A target no longer configured neither keeps a post awaiting nor needs the user.
      assert.deepEqual(await find({ state: "awaiting" }), [refused.id, fresh.id]);
      assert.deepEqual(await find({ state: "attention" }), [refused.id]);
      assert.deepEqual(await find({ state: "waiting" }), [fresh.id]);
      assert.deepEqual(await find({ state: "all" }), [
        sent.id,
        refused.id,
        unconfigured.id,
        pending.id,
        fresh.id,
      ]);
    });

    it("filters by target and by the run that touched the posts", async () => {
      assert.deepEqual(await find({ state: "all", target: refusing }), [refused.id]);
      // The unconfigured target was never sent to: the run touched the two others.
      assert.deepEqual(await find({ state: "all", runId }), [sent.id, refused.id]);
    });

    it("searches titles and content, whatever their case", async () => {
      assert.deepEqual(await find({ state: "all", search: "river" }), [sent.id]);
      assert.deepEqual(await find({ state: "all", search: "HERON" }), [refused.id]);
      assert.deepEqual(
        await find({ state: "all", search: "100%" }),
        [],
        "a % is a character, not a wildcard",
      );
    });

    it("finds a post by its URL written without the trailing slash, with a query, or with www.", async () => {
      const url = new URL(refused.url);
      const bare = refused.url.replace(/\/$/, "");
      for (const written of [
        refused.url,
        bare,
        `${refused.url}?utm_source=mastodon`,
        `${url.protocol}//www.${url.host}${url.pathname}`,
        `${url.host}${url.pathname}`,
        url.pathname,
      ]) {
        assert.deepEqual(await find({ state: "all", search: written }), [refused.id], written);
      }
    });
  });
}
