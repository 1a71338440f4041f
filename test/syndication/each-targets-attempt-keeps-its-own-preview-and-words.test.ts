// A send's claim writes what each attempt sends and its own words into the attempt row it inserts
// (decision 0081), for all of a post's targets in one statement: each row must carry its own
// target's copy and words, never another's, alone or riding the previous post's write-back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PostProperties } from "../../src/contract/syndicator.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  contentPreview,
  openSyndication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

/** A target whose copy names it, so that a copy recorded on another target's attempt shows. */
class NamingTarget extends TestTarget {
  preview(properties: PostProperties) {
    return { ...contentPreview(properties), text: `${this.info.uid} says: ${String(properties.content)}` };
  }
}

const first = "https://a.example/@me";
const second = "https://b.example/@me";

for (const engine of engines)
  describe(`each target's attempt keeps its own copy and words (${engine.name})`, () => {
    let fixture: SyndicationFixture<NamingTarget>;
    before(async () => {
      fixture = await openSyndication(engine, [new NamingTarget(first), new NamingTarget(second)]);
    });
    after(() => fixture.close());

    it("records each target's copy and own words on that target's attempt, for every post of a batch", async () => {
      const posts = [];
      for (const n of [1, 2, 3])
        posts.push(
          await fixture.createPost(`2026-11-0${n}T10:00:00Z`, [first, second], {
            "mp-syndicate-text": { [second]: `Second's own words ${n}` },
          }),
        );
      const { summary } = await collect(await fixture.syndication.runs.startBatch("batch"));
      assert.equal(summary.syndicated, 3, JSON.stringify(summary));

      const { rows } = await fixture.database.query<{
        post_id: string;
        target_uid: string;
        sent: { text: string | null } | string | null;
        own_text: string | null;
      }>(
        `SELECT post_id::text AS post_id, target_uid, sent, own_text FROM syndication_attempts
          ORDER BY post_id, target_uid`,
      );
      const sentText = (sent: (typeof rows)[number]["sent"]) =>
        (typeof sent === "string" ? (JSON.parse(sent) as { text: string | null }) : sent)?.text;
      assert.equal(rows.length, 6, JSON.stringify(rows));
      for (const [index, post] of posts.entries()) {
        const n = index + 1;
        const of = (uid: string) => rows.find((row) => row.post_id === post.id && row.target_uid === uid);
        assert.equal(
          sentText(of(first)?.sent ?? null),
          `${first} says: Post ${n}`,
          `post ${n}, first target's copy`,
        );
        assert.equal(of(first)?.own_text, null, `post ${n}: the first target has no words of its own`);
        assert.equal(
          sentText(of(second)?.sent ?? null),
          `${second} says: Post ${n}`,
          `post ${n}, second target's copy`,
        );
        assert.equal(
          of(second)?.own_text,
          `Second's own words ${n}`,
          `post ${n}: the second target's own words`,
        );
      }
    });
  });
