// A post whose target failed (a 503) waits for its next try. The page says what sends it then: with
// the scheduler on, the next try comes by itself ("Next try in …"); with `schedule.enabled: false`
// nothing retries by itself, so the row and the post's page say that a run (Syndicate all, a ping)
// or Retry sends it, never "Next try in 2 minutes". Beside "Syndicate all", which leaves such a post
// alone until its next try, the page says so.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { browser } from "../server/pages.ts";

/** The visible text of some HTML, tags dropped and spaces collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

const runHint = (html: string) => /<p class="run-hint">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "";

for (const engine of engines) {
  for (const scheduled of [false, true]) {
    describe(`a post waiting for its retry, scheduler ${scheduled ? "on" : "off"} (${engine.name})`, () => {
      let target: Target | undefined;
      let app: EndpointServer | undefined;
      let cookie = "";
      let postId = "";
      const page = async (path: string, language = "en") => {
        assert.ok(app);
        const response = await fetch(`${app.url}${path}`, {
          headers: browser({ cookie, "accept-language": language }),
        });
        assert.equal(response.status, 200, path);
        return response.text();
      };
      const row = (html: string) => {
        const start = html.indexOf(`<li id="post-${postId}"`);
        assert.ok(start >= 0, "the post has a row");
        const end = html.indexOf('<li id="post-', start + 1);
        return html.slice(start, end < 0 ? undefined : end);
      };

      before(async () => {
        ({ target, app } = await startWithOneTarget(engine, {
          pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: scheduled } },
        }));
        ({ cookie } = await app.server.signIn());
        target.sandbox.setFailure(503, "The server is down for maintenance");
        const url = await app.createPost({ content: "Sent while the target is down", targets: [target.uid] });
        postId = (await app.server.host.postSource?.findByUrl(url))?.id ?? "";
        assert.ok(postId);
        // Off, the owner's click sends it; on, the scheduler does, after publishing.
        if (!scheduled) await (await app.syndication().runs.startBatch("manual")).done;
        await until("the target failed and waits", async () =>
          row(await page("/syndicate")).includes("Failed, waiting to retry"),
        );
      });
      after(() => closeServerThenTargets(app, target));

      it("says in the row what sends the post again, and beside Syndicate all that it skips it until then", async () => {
        const html = await page("/syndicate");
        const note = textOf(/<span class="target-note">([\s\S]*?)<\/span>/.exec(row(html))?.[1] ?? "");
        if (scheduled) {
          assert.match(note, /^Next try in \d+ (second|minute)s? \(/);
          assert.doesNotMatch(note, /by itself/);
        } else {
          assert.doesNotMatch(note, /Next try/);
          assert.match(
            note,
            /^Due again in \d+ (second|minute)s? \(.*\); nothing retries it by itself \(the schedule is off\): from then on, Syndicate all or a ping of the endpoint sends it, “Retry failed targets” on its page at once\.$/,
          );
        }
        assert.match(
          textOf(runHint(html)),
          /A post marked “Failed, waiting to retry” is skipped until its next try; “Retry failed targets” on its page sends it now\./,
        );
      });

      it("says it on the post's page too, in German and French", async () => {
        const results = textOf(await page(`/syndicate/posts/${postId}`));
        if (scheduled) assert.doesNotMatch(results, /by itself/);
        else assert.match(results, /nothing retries it by itself \(the schedule is off\)/);
        const de = textOf(row(await page("/syndicate", "de")));
        const fr = textOf(row(await page("/syndicate", "fr")));
        if (scheduled) {
          assert.doesNotMatch(de, /Zeitplan ist aus/);
          assert.doesNotMatch(fr, /planification est désactivée/);
        } else {
          assert.match(de, /nichts versucht es von selbst erneut \(der Zeitplan ist aus\)/);
          assert.match(fr, /rien ne le réessaie tout seul \(la planification est désactivée\)/);
        }
      });
    });
  }
}

describe("Syndicate all's hint with no post waiting for a retry", () => {
  it("says nothing of skipped posts", async () => {
    const { target, app } = await startWithOneTarget(engines[0] as (typeof engines)[number], {
      pluginOptions: { targets: { checkAtStart: false }, schedule: { enabled: false } },
    });
    try {
      const { cookie } = await app.server.signIn();
      await app.createPost({ content: "Waiting, never tried", targets: [target.uid] });
      const html = await (await fetch(`${app.url}/syndicate`, { headers: browser({ cookie }) })).text();
      assert.match(runHint(html), /Sends every awaiting post/);
      assert.doesNotMatch(runHint(html), /skipped until its next try/);
    } finally {
      await closeServerThenTargets(app, target);
    }
  });
});
