// Decision 0064: a Micropub client chooses a post's thread per target with mp-syndicate-thread, shaped
// as mp-syndicate-text is ({uid: true | false | "account"}); it is kept where the preview page keeps
// its choice, never in the post, on create and update alike, and the copy follows it. An unknown uid,
// a target that cannot make threads and a value that is no choice are refused with 400.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import TestSyndicator from "../fixtures/test-syndicator.ts";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

const paragraph = (n: number) =>
  `Part ${n}: ${"Along the canal the herons stood still, the cormorants dried their wings on the posts and a kingfisher crossed twice. ".repeat(4).trim()}`;
const long = [1, 2, 3].map(paragraph).join("\n\n");

for (const engine of engines) {
  describe(`mp-syndicate-thread: a thread chosen from Micropub (${engine.name})`, () => {
    let target: Target;
    let app: EndpointServer;
    // A target that makes no threads (it has no `threads`).
    const plain = new TestSyndicator({ uid: "https://plain.example/", name: "Plain" });
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, { syndicators: [plain] }));
    });
    after(() => closeServerThenTargets(app, target));

    const micropub = (body: unknown) =>
      fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const create = (choice: unknown) =>
      micropub({
        type: ["h-entry"],
        properties: {
          content: [long],
          "mp-syndicate-to": [target.uid],
          "mp-syndicate-thread": [{ [target.uid]: choice }],
        },
      });
    const choices = async (url: string) => {
      const post = await app.server.host.posts?.findByUrl(url);
      assert.ok(post);
      const database = app.server.host.database;
      assert.ok(database);
      const { rows } = await database.query<{ target_uid: string; thread: boolean }>(
        "SELECT target_uid, thread FROM syndication_thread_choices WHERE post_id = $1::bigint",
        [post.id],
      );
      return { rows, properties: post.properties };
    };
    const live = () => target.sandbox.statuses.filter((status) => status.deletedAt === null);

    it("create with a thread chosen: the sandbox gets a chain; update to one post: the copy follows", async () => {
      const response = await create(true);
      assert.equal(response.status, 201, await response.clone().text());
      const url = response.headers.get("location") ?? "";
      const kept = await choices(url);
      assert.deepEqual(kept.rows, [{ target_uid: target.uid, thread: true }]);
      assert.equal(kept.properties["mp-syndicate-thread"], undefined, "never a post property");

      const before = target.sandbox.statuses.length;
      const sent = await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(sent.status, 200, await sent.clone().text());
      const chain = target.sandbox.statuses.slice(before);
      const firstText = chain[0]?.text;
      assert.ok(chain.length > 1, `a thread, not ${chain.length} status`);
      assert.deepEqual(
        chain.slice(1).map((status) => status.inReplyToId),
        chain.slice(0, -1).map((status) => status.id),
        "each answers the one before",
      );

      const update = await micropub({
        action: "update",
        url,
        replace: { "mp-syndicate-thread": [{ [target.uid]: false }] },
      });
      assert.equal(update.status, 204, await update.clone().text());
      assert.deepEqual((await choices(url)).rows, [{ target_uid: target.uid, thread: false }]);
      const batch = await app.syndicate("");
      assert.equal(batch.status, 200, await batch.clone().text());
      const left = live().filter((status) => chain.some((sentOne) => sentOne.id === status.id));
      assert.equal(left.length, 1, "one status is left of the thread");
      assert.equal(left[0]?.id, chain[0]?.id, "the copy's own");
      assert.notEqual(left[0]?.text, firstText, "edited");
      assert.match(
        left[0]?.text ?? "",
        /…\n\nhttp:\/\/127\.0\.0\.1:\d+\/notes\//,
        "cut, and linked to the post",
      );

      const reset = await micropub({
        action: "update",
        url,
        replace: { "mp-syndicate-thread": [{ [target.uid]: "account" }] },
      });
      assert.equal(reset.status, 204);
      assert.deepEqual((await choices(url)).rows, [], "back to the target's own option");
    });

    it("form-encoded: mp-syndicate-thread[<uid>]=on is the same choice", async () => {
      const response = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${app.token}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          h: "entry",
          content: long,
          "mp-syndicate-to": target.uid,
          [`mp-syndicate-thread[${target.uid}]`]: "on",
        }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      const kept = await choices(response.headers.get("location") ?? "");
      assert.deepEqual(kept.rows, [{ target_uid: target.uid, thread: true }]);
      assert.equal(kept.properties["mp-syndicate-thread"], undefined);
    });

    it("create with one post chosen: one status", async () => {
      const response = await create("off");
      assert.equal(response.status, 201, await response.clone().text());
      const url = response.headers.get("location") ?? "";
      const before = target.sandbox.statuses.length;
      await app.syndicate(`?source_url=${encodeURIComponent(url)}`);
      assert.equal(target.sandbox.statuses.length - before, 1);
    });

    it("400 for an unknown uid, a target without threads, a value that is no choice, and add", async () => {
      const unknown = await assertError(
        await micropub({
          type: ["h-entry"],
          properties: { content: ["x"], "mp-syndicate-thread": [{ "https://nowhere.example/": true }] },
        }),
        400,
        "invalid_request",
      );
      assert.match(unknown, /https:\/\/nowhere\.example\//);
      const threadless = await assertError(
        await micropub({
          type: ["h-entry"],
          properties: { content: ["x"], "mp-syndicate-thread": [{ [plain.info.uid]: true }] },
        }),
        400,
        "invalid_request",
      );
      assert.match(threadless, /cannot send a thread/);
      assert.match(threadless, /Plain/);
      const bad = await assertError(await create("maybe"), 400, "invalid_request");
      assert.match(bad, /true \(a thread\), false \(one post\)/);
      const created = await micropub({ type: ["h-entry"], properties: { content: ["y"] } });
      const url = created.headers.get("location") ?? "";
      await assertError(
        await micropub({ action: "update", url, add: { "mp-syndicate-thread": [{ [target.uid]: true }] } }),
        400,
        "invalid_request",
      );
      const badUpdate = await micropub({
        action: "update",
        url,
        replace: { "mp-syndicate-thread": [{ "https://nowhere.example/": true }] },
      });
      await assertError(badUpdate, 400, "invalid_request");
      assert.deepEqual((await choices(url)).rows, [], "nothing was saved");
    });
  });
}
