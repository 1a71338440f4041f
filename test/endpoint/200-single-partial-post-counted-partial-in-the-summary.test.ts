// The summary of a single-post request counts a post whose targets partly failed as partial, not as
// failed or syndicated (decision 0031): in the last NDJSON line and the event stream's summary event.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { summarize } from "../../src/plugin/responses/result-sink.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithTargets,
  type Target,
} from "./endpoint-server.ts";

describe("a partial post is counted partial in the summary", () => {
  let targets: Target[] = [];
  let app: EndpointServer | undefined;
  before(async () => {
    ({ targets, app } = await startWithTargets(2, { engine: pgliteEngine }));
  });
  after(() => closeServerThenTargets(app, ...targets));

  it("NDJSON: the summary line counts it partial too", async () => {
    const [working, failing] = targets;
    assert.ok(app && working && failing);
    const post = await app.createPost({ content: "partly again", targets: [working.uid, failing.uid] });
    failing.sandbox.setFailure(503, "The server is down for maintenance");
    const answer = await app.syndicate(`?source_url=${encodeURIComponent(post)}`, {
      headers: { accept: "application/x-ndjson" },
    });
    assert.equal(answer.status, 200);
    const lines = (await answer.text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines[0]?.status, "partial");
    assert.deepEqual(lines.at(-1), {
      type: "summary",
      summary: { posts: 1, syndicated: 0, partial: 1, failed: 0, skipped: 0 },
    });
  });

  it("event stream: the summary event counts it partial too", async () => {
    const [working, failing] = targets;
    assert.ok(app && working && failing);
    const post = await app.createPost({ content: "partly, streamed", targets: [working.uid, failing.uid] });
    failing.sandbox.setFailure(503, "The server is down for maintenance");
    const answer = await app.syndicate(`?source_url=${encodeURIComponent(post)}`, {
      headers: { accept: "text/event-stream" },
    });
    assert.equal(answer.status, 200);
    const summary = /event: summary\ndata: (.+)\n/.exec(await answer.text())?.[1];
    assert.deepEqual(JSON.parse(summary ?? "null"), {
      posts: 1,
      syndicated: 0,
      partial: 1,
      failed: 0,
      skipped: 0,
    });
  });

  it("summarize counts each status in its own column", () => {
    const result = (status: PostResult["status"]): PostResult => ({
      url: `https://example.org/${status}`,
      status,
      syndication: [],
      targets: [],
    });
    assert.deepEqual(
      summarize([
        result("syndicated"),
        result("partial"),
        result("partial"),
        result("failed"),
        result("unchanged"),
      ]),
      { posts: 5, syndicated: 1, partial: 2, failed: 1, skipped: 0 },
    );
  });
});
