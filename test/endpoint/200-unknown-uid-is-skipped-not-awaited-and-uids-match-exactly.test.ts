// Decision 0010: a target is identified by its exact uid. Decision 0010: a post
// naming a uid that no configured target has (the target was removed from the config after the post
// was made) does not wait for it: a run skips that uid, saying "No syndication target is configured
// for <uid>", a post naming nothing else is not walked, and a target whose uid is a prefix of that
// uid (https://…/@me against https://…/@me2) is not called in its place.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`uids are matched exactly, and an unknown uid is skipped, not awaited (${engine.name})`, () => {
    let database: Database | undefined;
    let me: Target | undefined;
    let app: EndpointServer | undefined;
    let me2 = "";
    let onlyMe2 = "";
    let both = "";
    before(async () => {
      database = await engine.open();
      me = await startTarget({ user: "me" });
      const sandbox = me.sandbox;
      // The same instance, another account: its uid starts with the uid of @me.
      const me2Target: Target = {
        sandbox,
        uid: `${sandbox.url}/@me2`,
        syndicator: () =>
          new MastodonSyndicator({ url: sandbox.url, user: "me2", accessToken: sandbox.accessToken }),
      };
      me2 = me2Target.uid;
      assert.ok(me2.startsWith(me.uid));
      // First the server had both targets, and the posts were made …
      const first = await startEndpointServer({ engine, database, targets: [me, me2Target] });
      onlyMe2 = await first.createPost({
        content: "for me2",
        targets: [me2],
        published: "2024-01-01T00:00:00Z",
      });
      both = await first.createPost({
        content: "for both",
        targets: [me.uid, me2],
        published: "2024-01-02T00:00:00Z",
      });
      await first.close();
      // … then it was restarted with @me2 removed from the config.
      app = await startEndpointServer({ engine, database, targets: [me] });
    });
    after(async () => {
      await app?.close();
      await closeAll(me);
      await database?.close();
    });

    it("skips the unknown uid, sends the known one, and never sends @me2's post to @me", async () => {
      assert.ok(app && me);
      const answer = await app.syndicate();
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as BatchBody;
      assert.deepEqual(body.summary, { posts: 1, syndicated: 1, partial: 0, failed: 0, skipped: 0 });
      const [only] = body.results;
      assert.equal(only?.url, both, "the post naming only @me2 does not wait: it is not walked");
      assert.equal(only?.status, "syndicated");
      assert.deepEqual(
        only?.targets.map(({ uid, status, error }) => ({ uid, status, error })),
        [
          { uid: me.uid, status: "syndicated", error: undefined },
          {
            uid: me2,
            status: "skipped",
            error: `No syndication target is configured for ${me2}; the post does not wait for it`,
          },
        ],
      );
      assert.deepEqual(
        me.sandbox.statuses.map((status) => status.text),
        ["for both"],
      );
      assert.deepEqual((await app.source(onlyMe2))["mp-syndicate-to"], [me2]);
      assert.deepEqual((await app.source(both))["mp-syndicate-to"], [me2]);
    });

    it("the page lists neither post as awaiting, and shows @me2 as not configured on the results page", async () => {
      assert.ok(app);
      const { cookie } = await app.server.signIn();
      const page = await (await fetch(app.endpoint, { headers: { cookie, accept: "text/html" } })).text();
      assert.match(page, /Nothing awaits syndication/);
      assert.doesNotMatch(page, /id="retry-all"/, "nothing needs attention");
      const post = await app.server.host.posts?.findByUrl(onlyMe2);
      const results = await (
        await fetch(`${app.endpoint}/posts/${post?.id}`, { headers: { cookie, accept: "text/html" } })
      ).text();
      assert.match(results, /Target not configured/);
      assert.match(results, /It does not keep the post waiting/);
      assert.match(results, /class="skip-form"/);
    });

    it("answers the same for the one post asked for by source_url", async () => {
      assert.ok(app && me);
      const answer = await app.syndicate(`?source_url=${encodeURIComponent(onlyMe2)}`);
      assert.equal(answer.status, 200);
      const result = (await answer.json()) as PostResult;
      assert.equal(result.status, "unchanged");
      assert.equal(result.targets[0]?.status, "skipped");
      assert.match(result.targets[0]?.error ?? "", /^No syndication target is configured for /);
      assert.equal(me.sandbox.statuses.length, 1);
    });
  });
}
