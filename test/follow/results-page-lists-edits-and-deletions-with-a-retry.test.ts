// Decision 0028: the post's results page lists what its copies did after the post changed, in English,
// German and French: updated on Mastodon, kept as sent where the target has no edits; after the
// delete, a refused deletion with a retry that deletes the copy, and the other copy kept. The history
// calls a done edit "Edit: Updated", never "Edit: Syndicated"; a deleted copy is named, never offered
// as "Link to the copy".
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SyndicatorPlugin } from "../../src/contract/plugin.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { contentPreview } from "../syndication/syndication-fixture.ts";

/** A target that keeps its copies as they were sent: no edits, no deletes (like Bluesky, an archive). */
const keeper: SyndicatorPlugin = {
  id: "keeper",
  name: "Keeper",
  meta: {},
  info: { uid: "https://keeper.example/", name: "Keeper" },
  init(server) {
    server.addSyndicator(keeper);
  },
  async syndicate(properties) {
    return `https://keeper.example/copies/${encodeURIComponent(String(properties.url))}`;
  },
  preview: contentPreview,
};

const LANGUAGES = {
  en: {
    updated: "Updated",
    editDone: "Edit: Updated",
    kept: "Kept as sent: Keeper has no edits",
    refused: "Deletion refused",
    deleted: "Deleted",
    keptCopy: "Kept: Keeper keeps its copy",
  },
  de: {
    updated: "Aktualisiert",
    editDone: "Änderung: Aktualisiert",
    kept: "Unverändert: Keeper kennt keine Bearbeitung",
    refused: "Löschung abgelehnt",
    deleted: "Gelöscht",
    keptCopy: "Behalten: Keeper behält seine Kopie",
  },
  fr: {
    updated: "Mise à jour",
    editDone: "Modification\u202f: Mise à jour",
    kept: "Conservée telle quelle\u202f: Keeper ne permet pas de modifier",
    refused: "Suppression refusée",
    deleted: "Supprimée",
    keptCopy: "Conservée\u202f: Keeper garde sa copie",
  },
} as const;

for (const engine of engines) {
  describe(`the results page lists the copies' edits and deletions (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let session: { cookie: string; csrf: string };
    let token: string;
    before(async () => {
      target = await startTarget();
      app = await startEndpointServer({ engine, targets: [target], syndicators: [keeper] });
      session = await app.server.signIn();
      token = await app.server.token("create update delete");
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    const page = async (path: string, language: string) =>
      (
        await fetch(`${app?.endpoint}${path}`, {
          headers: { cookie: session.cookie, accept: "text/html", "accept-language": language },
        })
      ).text();
    const micropub = async (body: Record<string, unknown>) => {
      const response = await fetch(`${app?.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 204, await response.text());
    };
    const batch = async () => {
      const response = await app?.syndicate();
      assert.equal(response?.status, 200);
      return (await response?.json()) as { summary: Record<string, number> };
    };

    it("shows updated, kept, refused with a retry, then deleted", async () => {
      assert.ok(app && target);
      const url = await app.createPost({ content: "Before", targets: [target.uid, keeper.info.uid] });
      await batch();
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);

      await micropub({ action: "update", url, replace: { content: ["After"] } });
      const followed = await batch();
      assert.equal(followed.summary.followed, 1, "the run reports the follow-up");
      assert.match(target.sandbox.statuses[0]?.text ?? "", /^After/);
      for (const [language, words] of Object.entries(LANGUAGES)) {
        const html = await page(`/posts/${post.id}`, language);
        assert.ok(html.includes(words.updated), `${language}: updated`);
        assert.ok(html.includes(words.kept), `${language}: kept`);
        assert.ok(
          html.includes(`<span class="state-label">${words.editDone}</span>`),
          `${language}: ${words.editDone}`,
        );
        assert.doesNotMatch(
          html,
          /state-label">[^<]*: (Syndicated|Syndiziert|Syndiquée?)</,
          `${language}: an edit is not "syndicated"`,
        );
      }

      target.sandbox.setFailure(403, "This action is not allowed", "DELETE /api/v1/statuses/:id");
      await micropub({ action: "delete", url });
      await batch();
      assert.equal(target.sandbox.statuses[0]?.deletedAt, null);
      for (const [language, words] of Object.entries(LANGUAGES)) {
        const html = await page(`/posts/${post.id}`, language);
        assert.ok(html.includes(words.refused), `${language}: refused`);
        assert.ok(html.includes(words.keptCopy), `${language}: the other copy kept`);
        assert.match(html, /class="follow-up-retry-form"/);
      }

      target.sandbox.clearBehaviour();
      const retried = await fetch(`${app.endpoint}/posts/${post.id}/follow-ups/retry`, {
        method: "POST",
        redirect: "manual",
        headers: {
          cookie: session.cookie,
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, target_uid: target.uid }),
      });
      assert.equal(retried.status, 303);
      assert.ok(target.sandbox.statuses[0]?.deletedAt, "the copy is deleted");
      const html = await page(`/posts/${post.id}`, "en");
      assert.ok(html.includes(LANGUAGES.en.deleted));
      assert.doesNotMatch(html, /class="follow-up-retry-form"/);
      const copy = target.sandbox.statuses[0]?.url;
      assert.ok(copy);
      assert.ok(html.includes(`<dt>The deleted copy</dt><dd><code class="deleted-copy">${copy}</code></dd>`));
      assert.ok(!html.includes(`href="${copy}"`), "the deleted copy is linked nowhere on the page");
      assert.ok(html.includes(`<span class="state-label">Deletion: Deleted</span>`));
      // The copy Keeper keeps is still there, and still a link.
      assert.match(html, /href="https:\/\/keeper\.example\/copies\//);
    });
  });
}
