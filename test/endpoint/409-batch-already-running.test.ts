// Decision 0007: only one run without source_url at a time. A second batch request during a
// run is told 409 syndication_in_progress with Retry-After, and the run in progress sends each post
// to each target once. Once it has ended a new batch may start.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  texts,
  until,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`a second batch during a run is told syndication is in progress (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
    });
    after(() => closeServerThenTargets(app, target));

    it("answers 409 with Retry-After while the first run lasts, to every kind of client", async () => {
      assert.ok(app && target);
      const sandbox = target.sandbox;
      for (const content of ["one", "two", "three"]) await app.createPost({ content, targets: [target.uid] });
      // The first status is held long enough for the second requests to arrive during the run.
      sandbox.setBehaviour({ hangMs: 1_500, times: 1 });

      const first = app.syndicate();
      await until("the run has sent its first request", () => sandbox.requests.length > 0);

      for (const accept of ["application/json", "text/event-stream", "application/x-ndjson"]) {
        const second: Response = await app.syndicate("", { headers: { accept } });
        assert.equal(second.status, 409, accept);
        assert.deepEqual(await second.json(), {
          error: "syndication_in_progress",
          error_description: "Syndication is already in progress",
        });
        const retryAfter = Number(second.headers.get("retry-after"));
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
      }

      // A browser's form without JavaScript is sent back to the page with the reason instead.
      const form: Response = await app.syndicate("", {
        headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
        body: "redirect_uri=%2Fsyndicate",
        redirect: "manual",
      });
      assert.equal(form.status, 303);
      assert.equal(form.headers.get("location"), "/syndicate");
      const flash = form.headers.getSetCookie().find((cookie) => cookie.startsWith("possekit_flash="));
      assert.ok(flash, "a flash message is set");
      const text = Buffer.from(
        decodeURIComponent(flash.split(";")[0]?.split("=")[1] ?? ""),
        "base64url",
      ).toString();
      assert.match(text, /already in progress/);

      const answer = await first;
      assert.equal(answer.status, 200);
      const body = (await answer.json()) as BatchBody;
      assert.deepEqual(body.summary, { posts: 3, syndicated: 3, partial: 0, failed: 0, skipped: 0 });
      assert.deepEqual(texts(target), ["one", "two", "three"], "each post sent once");
    });

    it("lets the next batch start once the run has ended", async () => {
      assert.ok(app && target);
      await app.createPost({ content: "four", targets: [target.uid] });
      const next = await app.syndicate();
      assert.equal(next.status, 200);
      assert.equal(((await next.json()) as BatchBody).summary.posts, 1);
      assert.deepEqual(texts(target), ["one", "two", "three", "four"]);
    });
  });
}
