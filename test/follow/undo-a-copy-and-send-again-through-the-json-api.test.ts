// Decision 0054, "Undo a copy" and "Send again" as the endpoint's JSON API: an API client with a
// Bearer token (or a form's access_token) and the scope update deletes one copy from a Mastodon
// sandbox and sends the post there again, once. Each refusal is performed: 400 (no target),
// 401 (no credentials, a forged token), 403 (a token without update), 404 (unknown post, unknown
// target), 409 (already removed, not removed), each {"error", "error_description"}, changing nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

interface ActionJson {
  url: string;
  target: { uid: string; state: string; removed_at: string | null; url: string | null } | null;
  result?: { status: string; targets: { uid: string; status: string; url?: string }[] };
  message: string;
}

for (const engine of engines) {
  describe(`Undo a copy and Send again through the JSON API (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    /** POST …/posts/<id>/<action> as an API client: JSON accepted, the token as Bearer unless `token` is null. */
    const call = (
      postId: string,
      action: "remove-copy" | "send-again",
      fields: Record<string, string>,
      token: string | null = app?.token ?? null,
    ) =>
      fetch(`${app?.endpoint}/posts/${postId}/${action}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          accept: "application/json",
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(fields),
      });

    it("deletes the copy on its service, then sends the post there once more", async () => {
      assert.ok(app);
      const [removed, kept] = targets;
      assert.ok(removed && kept);
      const url = await app.createPost({
        content: "Undone through the API",
        targets: [removed.uid, kept.uid],
      });
      assert.equal((await app.syndicate()).status, 200);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const copy = removed.sandbox.statuses.at(-1);
      assert.ok(copy && copy.deletedAt === null);
      const copies = removed.sandbox.statuses.length;

      const undone = await call(post.id, "remove-copy", { target_uid: removed.uid });
      assert.equal(undone.status, 200);
      assert.match(undone.headers.get("content-type") ?? "", /application\/json/);
      const body = (await undone.json()) as ActionJson;
      assert.equal(body.url, url);
      assert.equal(body.target?.uid, removed.uid);
      assert.equal(body.target?.state, "removed");
      assert.ok(body.target?.removed_at);
      assert.ok(copy.deletedAt, "the status is deleted on the Mastodon sandbox");
      assert.equal(kept.sandbox.statuses.at(-1)?.deletedAt, null, "the other copy stays");

      // A second undo: nothing left to remove.
      await assertError(await call(post.id, "remove-copy", { target_uid: removed.uid }), 409, "conflict");

      // Send again, with the token as a form's access_token: one new copy.
      const again = await fetch(`${app.endpoint}/posts/${post.id}/send-again`, {
        method: "POST",
        redirect: "manual",
        headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ access_token: app.token, target_uid: removed.uid }),
      });
      assert.equal(again.status, 200);
      const sent = (await again.json()) as ActionJson;
      assert.equal(removed.sandbox.statuses.length, copies + 1, "one new copy");
      const fresh = removed.sandbox.statuses.at(-1);
      assert.ok(fresh && fresh.deletedAt === null);
      assert.equal(sent.target?.state, "syndicated");
      assert.equal(sent.target?.removed_at, null);
      assert.equal(sent.target?.url, fresh.url);
      assert.equal(sent.result?.targets.find((t) => t.uid === removed.uid)?.status, "syndicated");

      // Sending again a target that was not removed: 409, and no second new copy.
      await assertError(await call(post.id, "send-again", { target_uid: removed.uid }), 409, "conflict");
      assert.equal((await app.syndicate("?force=true")).status, 200);
      assert.equal(removed.sandbox.statuses.length, copies + 1, "Send again made one copy only");
    });

    it("answers 202 when the service could not delete the copy yet: recorded, and retried by the runs", async () => {
      assert.ok(app);
      const [target] = targets;
      assert.ok(target);
      const url = await app.createPost({ content: "Its deletion waits", targets: [target.uid] });
      assert.equal((await app.syndicate()).status, 200);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const copy = target.sandbox.statuses.at(-1);
      assert.ok(copy);
      target.sandbox.setFailure(503, "Service Unavailable", "DELETE /api/v1/statuses/:id");
      try {
        const waiting = await call(post.id, "remove-copy", { target_uid: target.uid });
        assert.equal(waiting.status, 202);
        const body = (await waiting.json()) as ActionJson;
        assert.equal(body.target?.state, "syndicated", "the copy still exists");
        assert.ok(body.target?.removed_at, "its removal is recorded");
        assert.match(body.message, /could not be deleted yet/);
        assert.equal(copy.deletedAt, null);
      } finally {
        target.sandbox.clearBehaviour();
      }
      const retried = await fetch(`${app.endpoint}/posts/${post.id}/follow-ups/retry`, {
        method: "POST",
        redirect: "manual",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: JSON.stringify({ target_uid: target.uid }),
      });
      assert.equal(retried.status, 303);
      assert.ok(copy.deletedAt, "the deletion is carried out afterwards");
    });

    it("refuses bad input, strangers, a missing scope and unknown posts or targets, changing nothing", async () => {
      assert.ok(app);
      const [target] = targets;
      assert.ok(target);
      const url = await app.createPost({ content: "Refusals leave this copy", targets: [target.uid] });
      assert.equal((await app.syndicate()).status, 200);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const copy = target.sandbox.statuses.at(-1);
      assert.ok(copy);

      for (const action of ["remove-copy", "send-again"] as const) {
        await assertError(await call(post.id, action, {}), 400, "invalid_request");
        await assertError(
          await call(post.id, action, { target_uid: "x".repeat(3000) }),
          400,
          "invalid_request",
        );
        await assertError(await call(post.id, action, { target_uid: target.uid }, null), 401, "unauthorized");
        await assertError(
          await call(post.id, action, { target_uid: target.uid }, "forged"),
          401,
          "unauthorized",
        );
        const createOnly = await app.server.token("create");
        await assertError(
          await call(post.id, action, { target_uid: target.uid }, createOnly),
          403,
          "insufficient_scope",
        );
        await assertError(await call("999999999", action, { target_uid: target.uid }), 404, "not_found");
        await assertError(await call("not-a-post", action, { target_uid: target.uid }), 404, "not_found");
        const unknown = await assertError(
          await call(post.id, action, { target_uid: "https://nowhere.example/@me" }),
          404,
          "not_found",
        );
        assert.match(unknown, /https:\/\/nowhere\.example\/@me/);
      }
      // Send again before any undo: the target has its copy, it was not removed.
      await assertError(await call(post.id, "send-again", { target_uid: target.uid }), 409, "conflict");
      assert.equal(copy.deletedAt, null, "no refusal deleted the copy");
      assert.equal(target.sandbox.statuses.at(-1), copy, "no refusal sent a copy");
    });
  });
}
