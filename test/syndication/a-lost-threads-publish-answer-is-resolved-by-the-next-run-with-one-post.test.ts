// The core and the Threads syndicator together: the answer to threads_publish is lost (Threads did
// publish), the send is left uncertain with its container saved (checkpoint), and the next run
// resolves it from the container's status. Exactly one post reaches Threads, and the copy's URL is
// that post's permalink. On both database engines.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startThreadsSandbox, type ThreadsSandbox } from "../../dev/sandbox/threads-server.ts";
import { ThreadsSyndicator } from "../../src/syndicators/threads/index.ts";
import { engines } from "../helpers/databases.ts";
import { collect, ledgerRow, openSyndication, type SyndicationFixture } from "./syndication-fixture.ts";

for (const engine of engines) {
  describe(`a lost answer to threads_publish (${engine.name})`, () => {
    let sandbox: ThreadsSandbox;
    let fixture: SyndicationFixture<ThreadsSyndicator>;
    let threads: ThreadsSyndicator;

    before(async () => {
      sandbox = await startThreadsSandbox({ appId: "1234567890", appSecret: "app-secret-value" });
      threads = new ThreadsSyndicator(
        {
          userId: "17841400000000001",
          username: "alice",
          accessToken: sandbox.issueLongLivedToken(),
          apiUrl: sandbox.apiUrl,
        },
        {},
      );
      fixture = await openSyndication(engine, [threads]);
    });
    after(async () => {
      await fixture?.close();
      await sandbox?.close();
    });

    it("is resolved from the container by the next run: one post, its permalink recorded", async () => {
      const uid = threads.info.uid;
      const post = await fixture.createPost("2024-01-01T00:00:00Z", [uid]);
      sandbox.dropNextPublishAnswer = true;
      await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(sandbox.posts.length, 1, "Threads published it, but its answer was lost");
      const pending = await ledgerRow(fixture.database, post.id, uid);
      assert.notEqual(pending?.state, "syndicated");
      assert.notEqual(pending?.state, "unknown", "a saved container makes the outcome findable");

      for (
        let run = 0;
        run < 5 && (await ledgerRow(fixture.database, post.id, uid))?.state !== "syndicated";
        run++
      ) {
        fixture.clock.advance(3_600_000);
        await collect(await fixture.syndication.runs.startBatch("batch"));
      }
      const done = await ledgerRow(fixture.database, post.id, uid);
      assert.equal(done?.state, "syndicated");
      assert.equal(sandbox.posts.length, 1, "never a second post");
      assert.equal(sandbox.containers.length, 1, "never a second container");
      assert.equal(done?.url, sandbox.posts[0]?.permalink);
    });
  });
}
