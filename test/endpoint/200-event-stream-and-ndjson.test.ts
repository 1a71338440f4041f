// Decision 0009: Accept: text/event-stream gets a `result` event per post as it finishes,
// then a `summary` event; Accept: application/x-ndjson gets a JSON line per result, then the
// summary line. Both carry the same results as the JSON answer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "./endpoint-server.ts";

interface ServerSentEvent {
  event: string;
  data: string;
}

/** Reads a whole text/event-stream body as the EventSource algorithm does (comments dropped). */
function parseEvents(text: string): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

for (const engine of engines) {
  describe(`results stream as server-sent events or NDJSON (${engine.name})`, () => {
    let targets: Target[] = [];
    let app: EndpointServer | undefined;
    before(async () => {
      ({ targets, app } = await startWithTargets(2, { engine }));
    });
    after(() => closeServerThenTargets(app, ...targets));

    const createTwo = async (prefix: string) => {
      assert.ok(app);
      const uids = targets.map((target) => target.uid);
      return [
        await app.createPost({ content: `${prefix} 1`, targets: uids, published: "2024-01-01T00:00:00Z" }),
        await app.createPost({ content: `${prefix} 2`, targets: uids, published: "2024-01-02T00:00:00Z" }),
      ];
    };

    it("sends a result event per post, oldest first, then a summary event", async () => {
      assert.ok(app);
      const posts = await createTwo("sse");
      const answer = await app.syndicate("", { headers: { accept: "text/event-stream" } });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get("content-type") ?? "", /^text\/event-stream/);
      assert.equal(answer.headers.get("cache-control"), "no-store");
      const events = parseEvents(await answer.text());
      assert.deepEqual(
        events.map((e) => e.event),
        ["result", "result", "summary"],
      );
      const results = events.slice(0, 2).map((e) => JSON.parse(e.data) as PostResult);
      assert.deepEqual(
        results.map((r) => [r.url, r.status]),
        posts.map((url) => [url, "syndicated"]),
      );
      assert.equal(results[0]?.targets.length, 2);
      assert.deepEqual(JSON.parse(events[2]?.data ?? "null"), {
        posts: 2,
        syndicated: 2,
        partial: 0,
        failed: 0,
        skipped: 0,
      });
      for (const target of targets) assert.equal(target.sandbox.statuses.length, 2);
    });

    it("sends a JSON line per post, then the summary line", async () => {
      assert.ok(app);
      const posts = await createTwo("ndjson");
      const answer = await app.syndicate("", { headers: { accept: "application/x-ndjson" } });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get("content-type") ?? "", /^application\/x-ndjson/);
      const text = await answer.text();
      assert.ok(text.endsWith("\n"), "every line is ended");
      const lines = text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; summary?: RunSummary } & Partial<PostResult>);
      assert.deepEqual(
        lines.map((line) => line.type),
        ["result", "result", "summary"],
      );
      assert.deepEqual(
        lines.slice(0, 2).map((line) => [line.url, line.status, line.targets?.length]),
        posts.map((url) => [url, "syndicated", 2]),
      );
      assert.deepEqual(lines[2]?.summary, { posts: 2, syndicated: 2, partial: 0, failed: 0, skipped: 0 });
      for (const target of targets) assert.equal(target.sandbox.statuses.length, 4);
    });

    it("streams the one post of a source_url request as its result and a summary", async () => {
      assert.ok(app);
      const [post] = await createTwo("single");
      assert.ok(post);
      const answer = await app.syndicate(`?source_url=${encodeURIComponent(post)}`, {
        headers: { accept: "text/event-stream" },
      });
      assert.equal(answer.status, 200);
      const events = parseEvents(await answer.text());
      assert.deepEqual(
        events.map((e) => e.event),
        ["result", "summary"],
      );
      assert.equal((JSON.parse(events[0]?.data ?? "null") as PostResult).url, post);
      assert.deepEqual(JSON.parse(events[1]?.data ?? "null"), {
        posts: 1,
        syndicated: 1,
        partial: 0,
        failed: 0,
        skipped: 0,
      });
    });

    it("sends only the summary when nothing is awaiting", async () => {
      assert.ok(app);
      // The post left over from the previous test goes first; then nothing is awaiting.
      await app.syndicate();
      const events = parseEvents(
        await (await app.syndicate("", { headers: { accept: "text/event-stream" } })).text(),
      );
      assert.deepEqual(events, [
        {
          event: "summary",
          data: JSON.stringify({ posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 }),
        },
      ]);
      const lines = (await (await app.syndicate("", { headers: { accept: "application/x-ndjson" } })).text())
        .trimEnd()
        .split("\n");
      assert.deepEqual(
        lines.map((line) => JSON.parse(line)),
        [{ type: "summary", summary: { posts: 0, syndicated: 0, partial: 0, failed: 0, skipped: 0 } }],
      );
    });
  });
}
