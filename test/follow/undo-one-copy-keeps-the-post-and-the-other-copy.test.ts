// Decision 0054, "Undo a copy": from the results page (a form with its CSRF token, no
// JavaScript), one copy of a post sent to two Mastodon sandboxes is deleted from its service; the
// other copy is untouched, the post stays published, the target reads "Removed by you" (en, de, fr
// and JSON), and a run sends it nothing. "Send again" makes a new copy. A forged CSRF token, a
// target without a copy and a second undo change nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTargets,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

const REMOVED = { en: "Removed by you", de: "Von Ihnen entfernt", fr: "Retirée par vous" } as const;

interface ResultsJson {
  targets: { uid: string; state: string; removed_at: string | null }[];
}

for (const engine of engines) {
  describe(`undo one copy of a post with two targets (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    let session: { cookie: string; csrf: string };
    before(async () => {
      targets = await startTargets(2);
      app = await startEndpointServer({ engine, targets });
      session = await app.server.signIn();
    });
    after(async () => {
      await app?.close();
      await closeAll(...targets);
    });

    const batch = async () => {
      const response = await app?.syndicate();
      assert.equal(response?.status, 200);
      return (await response?.json()) as { summary: Record<string, number> };
    };
    const action = (
      postId: string,
      path: string,
      fields: Record<string, string>,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${app?.endpoint}/posts/${postId}/${path}`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: new URLSearchParams(fields),
      });
    const page = async (postId: string, accept: string, language = "en") =>
      (
        await fetch(`${app?.endpoint}/posts/${postId}`, {
          headers: { cookie: session.cookie, accept, "accept-language": language },
        })
      ).text();

    it("deletes that copy only, keeps the post, sends it nothing until Send again", async () => {
      assert.ok(app);
      const [removed, kept] = targets;
      assert.ok(removed && kept && removed.uid !== kept.uid);
      const url = await app.createPost({ content: "Two copies of this", targets: [removed.uid, kept.uid] });
      await batch();
      assert.equal(removed.sandbox.statuses.length, 1);
      assert.equal(kept.sandbox.statuses.length, 1);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      assert.match(await page(post.id, "text/html"), /class="remove-copy-form"/);

      // A forged token deletes nothing.
      const forged = await action(post.id, "remove-copy", { _csrf: "forged", target_uid: removed.uid });
      assert.equal(forged.status, 403);
      await forged.body?.cancel();
      assert.equal(removed.sandbox.statuses[0]?.deletedAt, null);

      const undone = await action(post.id, "remove-copy", { _csrf: session.csrf, target_uid: removed.uid });
      assert.equal(undone.status, 303);
      await undone.body?.cancel();
      assert.ok(removed.sandbox.statuses[0]?.deletedAt, "the copy is deleted on its service");
      assert.equal(kept.sandbox.statuses[0]?.deletedAt, null, "the other copy is untouched");

      const after = await app.server.host.posts?.findByUrl(url);
      assert.ok(after && !after.deleted, "the post is still published");
      assert.deepEqual(
        after.properties.syndication,
        [kept.sandbox.statuses[0]?.url],
        "only the kept copy's link",
      );
      for (const language of ["en", "de", "fr"] as const) {
        const html = await page(post.id, "text/html", language);
        assert.ok(html.includes(REMOVED[language]), `${language}: removed by you`);
        assert.match(html, /class="send-again-form"/);
      }
      const json = JSON.parse(await page(post.id, "application/json")) as ResultsJson;
      assert.equal(json.targets.find((t) => t.uid === removed.uid)?.state, "removed");
      assert.ok(json.targets.find((t) => t.uid === removed.uid)?.removed_at);
      assert.equal(json.targets.find((t) => t.uid === kept.uid)?.state, "syndicated");

      // A run, forced or not, sends it nothing; a second undo has no copy to remove.
      await batch();
      const forcedRun = await app.syndicate("?force=true");
      assert.equal(forcedRun.status, 200, "a forced run");
      await forcedRun.body?.cancel();
      assert.equal(
        removed.sandbox.statuses.length,
        1,
        "nothing sent to the target the copy was removed from",
      );
      assert.equal(kept.sandbox.statuses.length, 1);
      const again = await action(
        post.id,
        "remove-copy",
        { _csrf: session.csrf, target_uid: removed.uid },
        { "hx-request": "true" },
      );
      assert.equal(again.status, 409, "htmx is answered with the refusal");
      assert.ok((await again.text()).includes("holds no copy of this post that can be removed"));

      // Send again: a new copy on that target, and the row is syndicated again.
      const resent = await action(post.id, "send-again", { _csrf: session.csrf, target_uid: removed.uid });
      assert.equal(resent.status, 303);
      await resent.body?.cancel();
      assert.equal(removed.sandbox.statuses.length, 2, "a new copy");
      assert.equal(removed.sandbox.statuses[1]?.deletedAt, null);
      const back = JSON.parse(await page(post.id, "application/json")) as ResultsJson;
      assert.equal(back.targets.find((t) => t.uid === removed.uid)?.state, "syndicated");
      assert.equal(kept.sandbox.statuses.length, 1, "the other target got nothing new");
    });

    it("keeps a removal that failed on its way out when the post is edited meanwhile", async () => {
      assert.ok(app);
      const [removed, kept] = targets;
      assert.ok(removed && kept);
      const url = await app.createPost({ content: "Edited while its copy goes", targets: [removed.uid] });
      await batch();
      const status = removed.sandbox.statuses.at(-1);
      assert.ok(status);
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      removed.sandbox.setFailure(503, "Service Unavailable", "DELETE /api/v1/statuses/:id");
      const undone = await action(
        post.id,
        "remove-copy",
        { _csrf: session.csrf, target_uid: removed.uid },
        { "hx-request": "true" },
      );
      assert.ok((await undone.text()).includes("could not be deleted yet"));
      assert.equal(status.deletedAt, null);

      const token = await app.server.token("update");
      const edited = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "update", url, replace: { content: ["Edited meanwhile"] } }),
      });
      assert.equal(edited.status, 204);
      await batch();
      assert.doesNotMatch(status.text, /Edited meanwhile/, "a copy on its way out is not edited");

      removed.sandbox.clearBehaviour();
      const retried = await action(post.id, "follow-ups/retry", {
        _csrf: session.csrf,
        target_uid: removed.uid,
      });
      assert.equal(retried.status, 303);
      await retried.body?.cancel();
      assert.ok(status.deletedAt, "the removal is still carried out");
      const json = JSON.parse(await page(post.id, "application/json")) as ResultsJson;
      assert.equal(json.targets.find((t) => t.uid === removed.uid)?.state, "removed");
    });
  });
}
