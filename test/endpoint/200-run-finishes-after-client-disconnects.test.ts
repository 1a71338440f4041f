// Decision 0007: a run goes on to its end when the client disconnects, whether it was waiting
// for JSON or reading a stream of events.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
  texts,
  until,
} from "./endpoint-server.ts";

for (const engine of engines) {
  describe(`a batch goes on to its end when the client goes away (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      target = await startTarget({ latencyMs: 100 });
      app = await startEndpointServer({ engine, targets: [target] });
    });
    after(async () => {
      await app?.close();
      await closeAll(target);
    });

    for (const accept of ["application/json", "text/event-stream"]) {
      it(`finishes the run after a client asking for ${accept} aborts`, async () => {
        assert.ok(app && target);
        const sandbox = target.sandbox;
        const before = sandbox.statuses.length;
        const names = [1, 2, 3].map((i) => `${accept} ${i}`);
        const posts: string[] = [];
        for (const content of names) posts.push(await app.createPost({ content, targets: [target.uid] }));

        const client = new AbortController();
        const request = app.syndicate("", { headers: { accept }, signal: client.signal });
        await until("the run has sent its first request", () => sandbox.requests.length > before);
        client.abort();
        await assert.rejects(async () => (await request).text(), { name: "AbortError" });

        await until("every post has reached the target", () => sandbox.statuses.length === before + 3);
        assert.deepEqual(texts(target).slice(before), names);
        // The answer went nowhere; the run's record says how it ended.
        await app.syndication().runs.idle();
        const [run] = await app.syndication().reads.recentRuns(1);
        assert.equal(run?.status, "finished");
        assert.deepEqual(run?.summary, { posts: 3, syndicated: 3, partial: 0, failed: 0, skipped: 0 });
        for (const url of posts) assert.equal((await app.source(url))["mp-syndicate-to"], undefined);
      });
    }
  });
}
