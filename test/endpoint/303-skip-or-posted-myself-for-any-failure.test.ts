// Per target and post, for any failure (not only an unknown outcome): "I posted it myself" records
// the copy's address and writes it back to the post like a syndicated one; "Skip for this post" makes
// the post stop naming the target, so it no longer waits nor needs attention, and is never sent there.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`skip, or say it was posted by hand, after any failure (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let session: { cookie: string; csrf: string };
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      session = await app.server.signIn();
    });
    after(() => closeServerThenTargets(app, target));

    const postId = async (url: string) => {
      const post = await app?.server.host.posts?.findByUrl(url);
      assert.ok(post);
      return post.id;
    };
    const html = async (path: string) =>
      (
        await fetch(`${app?.endpoint}${path}`, { headers: { cookie: session.cookie, accept: "text/html" } })
      ).text();
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${app?.endpoint}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
      });

    it("a refused post (422) offers both; I posted it myself writes the address back", async () => {
      assert.ok(app && target);
      target.sandbox.setFailure(422, "Validation failed: Text character limit of 500 exceeded");
      const url = await app.createPost({ content: "too long for the instance", targets: [target.uid] });
      const run = (await (await app.syndicate(`?source_url=${encodeURIComponent(url)}`)).json()) as {
        status: string;
      };
      assert.equal(run.status, "failed");
      target.sandbox.clearBehaviour();
      const id = await postId(url);
      const page = await html(`/posts/${id}`);
      assert.match(page, /class="confirm-form"/, "I posted it myself, for a refusal too");
      assert.match(page, />I posted it myself</);
      assert.match(page, /class="skip-form"/);

      const copy = `${target.sandbox.url}/@${target.sandbox.user}/110000000000000777`;
      const confirmed = await form(`/posts/${id}/confirm`, { target_uid: target.uid, copy_url: copy });
      assert.equal(confirmed.status, 303);
      const source = await app.source(url);
      assert.deepEqual(source.syndication, [copy]);
      assert.equal(source["mp-syndicate-to"], undefined);
      assert.equal(target.sandbox.statuses.length, 0, "nothing was sent");
    });

    it("Skip for this post: the post stops naming the target, does not wait, and is never sent there", async () => {
      assert.ok(app && target);
      target.sandbox.setFailure(503, "Service Unavailable");
      const url = await app.createPost({
        content: "sent while the instance was down",
        targets: [target.uid],
      });
      await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      target.sandbox.clearBehaviour();
      const id = await postId(url);
      assert.equal((await app.syndication().reads.postsNeedingAttention()).all, 1);

      const skipped = await form(`/posts/${id}/skip`, { target_uid: target.uid });
      assert.equal(skipped.status, 303);
      assert.equal((await app.source(url))["mp-syndicate-to"], undefined);
      assert.deepEqual(await app.syndication().reads.postsNeedingAttention(), { needingUser: 0, all: 0 });
      assert.match(await html(`/posts/${id}`), /Skipped for this post/);
      assert.match(await html(""), /Nothing awaits syndication/);

      const batch = (await (await app.syndicate("/retry")).json()) as BatchBody;
      assert.ok(!batch.results.some((result) => result.url === url));
      assert.equal(target.sandbox.statuses.length, 0, "never sent there");
    });

    it("a target that has the post cannot be skipped (409); a bad address is not recorded (422)", async () => {
      assert.ok(app && target);
      const url = await app.createPost({ content: "sent fine", targets: [target.uid] });
      await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      const id = await postId(url);
      const refused = await fetch(`${app.endpoint}/posts/${id}/skip`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          "hx-request": "true",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, target_uid: target.uid }),
      });
      assert.equal(refused.status, 409);
      const badUrl = await fetch(`${app.endpoint}/posts/${id}/confirm`, {
        method: "POST",
        headers: {
          cookie: session.cookie,
          "hx-request": "true",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          _csrf: session.csrf,
          target_uid: target.uid,
          copy_url: "javascript:alert(1)",
        }),
      });
      assert.equal(badUrl.status, 422);
    });
  });
}
