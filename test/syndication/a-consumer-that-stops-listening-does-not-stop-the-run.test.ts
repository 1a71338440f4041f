import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostResult } from "../../src/syndication/types.ts";
import { engines } from "../helpers/databases.ts";
import { openSyndication, type SyndicationFixture, TestTarget } from "./syndication-fixture.ts";

const uid = "https://social.example/@me";

for (const engine of engines) {
  describe(`a run goes on whoever listens (${engine.name})`, () => {
    let fixture: SyndicationFixture;
    before(async () => {
      fixture = await openSyndication(engine, [new TestTarget(uid)]);
    });
    after(() => fixture.close());

    it("breaking out of results after the first does not stop or stall the run", async () => {
      const posts = [];
      for (let day = 1; day <= 6; day += 1)
        posts.push(await fixture.createPost(`2024-01-0${day}T00:00:00Z`, [uid]));
      const run = await fixture.syndication.runs.startBatch("batch");
      const seen: PostResult[] = [];
      for await (const result of run.results) {
        seen.push(result);
        break; // the client disconnected
      }
      const summary = await run.done;
      assert.equal(seen.length, 1);
      assert.equal(summary.posts, 6);
      for (const post of posts) assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1);
    });

    it("with no listener at all the run still completes", async () => {
      const post = await fixture.createPost("2024-02-01T00:00:00Z", [uid]);
      const run = await fixture.syndication.runs.startBatch("cli");
      assert.equal((await run.done).posts, 1);
      assert.equal(fixture.targets[0]?.callsFor(post.url).length, 1);
    });

    it("two listeners each receive every result; one that arrives after the end gets nothing", async () => {
      await fixture.createPost("2024-03-01T00:00:00Z", [uid]);
      await fixture.createPost("2024-03-02T00:00:00Z", [uid]);
      const run = await fixture.syndication.runs.startBatch("batch");
      const read = async () => {
        const urls: string[] = [];
        for await (const result of run.results) urls.push(result.url);
        return urls;
      };
      const [one, two] = await Promise.all([read(), read()]);
      assert.equal(one.length, 2);
      assert.deepEqual(one, two);
      await run.done;
      assert.deepEqual(await read(), []);
    });
  });
}
