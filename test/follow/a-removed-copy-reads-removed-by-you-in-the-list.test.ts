// Decision 0054: a copy the user removed ("Undo a copy") reads "Removed by you" in the Syndicate
// list too (en, de, fr), as on its results page and in its JSON, never "Skipped for this post"; the
// post is done, neither awaiting nor waiting nor needing attention. A target the user skipped still
// reads "Skipped for this post", so the words are told apart, not merged.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";

const REMOVED = { en: "Removed by you", de: "Von Ihnen entfernt", fr: "Retirée par vous" } as const;
const SKIPPED = {
  en: "Skipped for this post",
  de: "Für diesen Beitrag übersprungen",
  fr: "Ignorée pour cette publication",
} as const;

/** The list item of one post on the page. */
function rowOf(html: string, postId: string): string {
  const start = html.indexOf(`<li id="post-${postId}"`);
  assert.ok(start >= 0, `post ${postId} is listed`);
  const next = html.indexOf('<li id="post-', start + 1);
  return html.slice(start, next > 0 ? next : undefined);
}

for (const engine of engines) {
  describe(`a removed copy in the Syndicate list (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    const list = async (query: string, language = "en") => {
      const response = await fetch(`${app?.endpoint}${query}`, {
        headers: { authorization: `Bearer ${app?.token}`, accept: "text/html", "accept-language": language },
      });
      assert.equal(response.status, 200);
      return response.text();
    };

    it("says Removed by you in every language, and the post awaits nothing", async () => {
      assert.ok(app);
      const [first, second] = targets;
      assert.ok(first && second);
      const removedUrl = await app.createPost({
        content: "Its first copy undone",
        targets: [first.uid, second.uid],
      });
      const skippedUrl = await app.createPost({
        content: "Its first target skipped",
        targets: [first.uid, second.uid],
      });
      await app.syndication().copies.skip(skippedUrl, first.uid);
      assert.equal((await app.syndicate()).status, 200);
      const removed = await app.server.host.posts?.findByUrl(removedUrl);
      const skipped = await app.server.host.posts?.findByUrl(skippedUrl);
      assert.ok(removed && skipped);

      const undone = await fetch(`${app.endpoint}/posts/${removed.id}/remove-copy`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${app.token}`,
          accept: "application/json",
          "content-type": "application/json",
        },
        body: JSON.stringify({ target_uid: first.uid }),
      });
      assert.equal(undone.status, 200);
      assert.ok(first.sandbox.statuses[0]?.deletedAt, "the copy is gone from its service");

      for (const language of ["en", "de", "fr"] as const) {
        const html = await list("?state=all", language);
        const removedRow = rowOf(html, removed.id);
        assert.ok(removedRow.includes(REMOVED[language]), `${language}: the row says removed by you`);
        assert.ok(!removedRow.includes(SKIPPED[language]), `${language}: the row does not say skipped`);
        assert.match(removedRow, /class="target state-removed"/);
        assert.match(removedRow, /class="post-row overall-done"/, "nothing more to do for the post");
        const skippedRow = rowOf(html, skipped.id);
        assert.ok(skippedRow.includes(SKIPPED[language]), `${language}: a skipped target says skipped`);
        assert.ok(!skippedRow.includes(REMOVED[language]));
      }
      // Neither awaiting, waiting for a run, nor needing the user (filtered by the target, so that
      // an empty awaiting list does not show the latest results instead).
      const target = encodeURIComponent(first.uid);
      for (const state of ["awaiting", "waiting", "attention"])
        assert.ok(
          !(await list(`?state=${state}&target=${target}`)).includes(`<li id="post-${removed.id}"`),
          state,
        );
      assert.ok((await list(`?state=all&target=${target}`)).includes(`<li id="post-${removed.id}"`));

      const json = (await (
        await fetch(`${app.endpoint}/posts/${removed.id}`, {
          headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
        })
      ).json()) as { targets: { uid: string; state: string; removed_at: string | null }[] };
      assert.equal(json.targets.find((t) => t.uid === first.uid)?.state, "removed");
      assert.equal(json.targets.find((t) => t.uid === second.uid)?.state, "syndicated");
    });
  });
}
