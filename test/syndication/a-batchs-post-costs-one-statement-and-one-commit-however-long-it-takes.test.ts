// A post's syndication costs at most 3 statements and 1 commit (decision 0056), whatever the
// machine's load (decision 0080): a batch reads no post again because time passed, and a page's
// last post carries the next page's first claim in its write-back like any other. Counted through
// the real database with the wrapper the bench counts with (bench/lib/query-timer.ts), as the
// difference between a batch of 3 posts and one that crosses two page ends, while the test's clock
// moves 2 s at every send: the stand-in for a machine so loaded that each post takes seconds.
// Twice: with a target that sends without a preview through the post service, and with one that
// previews its copy (as every real syndicator does) through the host's post source, half of its
// posts with their own words (decision 0081): what each attempt sends and its words are written by
// the claim's attempt row, and the host does not read the post again before its write-back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { QueryTimer } from "../../bench/lib/query-timer.ts";
import { seedPosts } from "../../bench/lib/seed.ts";
import type { Database } from "../../src/contract/database.ts";
import type { PostSource } from "../../src/contract/post-source.ts";
import type { PostProperties } from "../../src/contract/syndicator.ts";
import { HostKnownPosts } from "../../src/server/posts/known-posts.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import { hostPostSource } from "../../src/server/posts/post-source.ts";
import { Syndication } from "../../src/syndication/syndication.ts";
import { engines } from "../helpers/databases.ts";
import {
  collect,
  contentPreview,
  copyUrl,
  openSyndication,
  publication,
  type SyndicationFixture,
  silent,
  TestTarget,
} from "./syndication-fixture.ts";

const copies = "https://copies.example/@me";
const CLAIM = "ledger.claim (INSERT … ON CONFLICT + attempt row)";
const RENEWAL = "lease renewal";
/** More than two pages of posts (a page is 100). */
const LARGE = 205;

/** A target that previews its copy, as every real syndicator does (the Mastodon one among them). */
class PreviewingTarget extends TestTarget {
  preview(properties: PostProperties) {
    return contentPreview(properties);
  }
}

interface Variant {
  name: string;
  previews: boolean;
  source: (database: Database) => PostSource;
}

const variants: Variant[] = [
  {
    name: "a target without a preview, the post service",
    previews: false,
    source: (database) => createPostService(database, publication),
  },
  {
    name: "a previewing target, the host's post source",
    previews: true,
    source: (database) =>
      hostPostSource({
        own: createPostService(database, publication),
        all: createPostService(database, publication, "all"),
        known: new HostKnownPosts(database),
        logger: silent,
      }),
  },
];

for (const engine of engines)
  for (const variant of variants)
    describe(`a batch's post costs one statement and one commit however long it takes (${engine.name}, ${variant.name})`, () => {
      let fixture: SyndicationFixture;
      let counted: Syndication;
      const timer = new QueryTimer();
      const kind = (name: string) => timer.report().find((row) => row.kind === name)?.count ?? 0;
      let seeded = 0;
      before(async () => {
        const Target = variant.previews ? PreviewingTarget : TestTarget;
        fixture = await openSyndication(engine, [
          new Target(copies, {
            // Each send takes 2 s by the core's clock: every page is over a second old when most of
            // its posts are claimed.
            behaviour: (call, count) => {
              fixture.clock.advance(2_000);
              return copyUrl(copies, call.postUrl, count);
            },
          }),
        ]);
        const database = timer.wrap(fixture.database);
        counted = new Syndication({
          database,
          posts: variant.source(database),
          syndicators: () => fixture.targets,
          publication,
          logger: silent,
          options: { targetTimeoutMs: 30_000, clock: fixture.clock.now },
        });
      });
      after(async () => {
        await counted.runs.shutdown();
        await fixture.close();
      });

      /**
       * A batch over `count` new posts naming the target, and any made before; its statements and
       * commits, lease renewals aside.
       */
      const batch = async (count: number) => {
        if (count > 0) {
          await seedPosts(fixture.database, { count, first: seeded + 1, targets: [copies], awaitEvery: 1 });
          // Every other post with its client's own words: noted in its attempt, as what it sends is.
          await fixture.database.query(
            `UPDATE posts SET properties = properties || jsonb_build_object('mp-syndicate-text',
                  jsonb_build_object($1::text, 'Own words of ' || slug))
            WHERE slug LIKE 'bench-%' AND substr(slug, 7)::int > $2 AND substr(slug, 7)::int % 2 = 0`,
            [copies, seeded],
          );
        }
        seeded += count;
        timer.reset();
        const { summary } = await collect(await counted.runs.startBatch("batch"));
        if (count > 0) assert.equal(summary.syndicated, count, JSON.stringify(summary));
        // Renewed on a real timer, every 10 s of the wall clock: a run's, not a post's.
        const renewals = kind(RENEWAL);
        return {
          statements: timer.statements() - renewals,
          commits: timer.commits() - renewals,
          claimsAlone: kind(CLAIM),
          readAgain: kind("posts.findById") + kind("ledger.entriesForPost"),
        };
      };

      it(`${LARGE - 3} more posts across two page ends: at most 3 statements and exactly 1 commit each, none read again`, async () => {
        // The first success of a target this process meets writes its health on its own, once.
        await batch(1);
        const small = await batch(3);
        const large = await batch(LARGE);
        const report = JSON.stringify(timer.report());
        assert.equal(large.readAgain, 0, `no post is read again because time passed: ${report}`);
        assert.equal(large.claimsAlone, 1, `only the batch's first claim commits alone: ${report}`);
        const posts = LARGE - 3;
        const statements = large.statements - small.statements;
        const commits = large.commits - small.commits;
        assert.ok(statements <= 3 * posts, `${statements} statements for ${posts} posts: ${report}`);
        // Each post's write-back (its outcomes, its links, the next post's claim), and for each page of
        // posts one read of the page and three of what the ledger and the page hold of it.
        assert.equal(statements, posts + 2 * 4, report);
        assert.equal(commits, posts, `${commits} commits for ${posts} posts: ${report}`);
        // What each attempt sent, and the own words of those that carried some, were kept all the same.
        const { rows } = await fixture.database.query<{ sent: number; own: number; words: number }>(
          `SELECT count(*) FILTER (WHERE a.sent IS NOT NULL)::int AS sent,
                count(*) FILTER (WHERE a.own_text = 'Own words of ' || p.slug)::int AS own,
                count(*) FILTER (WHERE p.properties ? 'mp-syndicate-text')::int AS words
           FROM syndication_attempts AS a JOIN posts AS p ON p.id = a.post_id
          WHERE p.slug LIKE 'bench-%'`,
        );
        const kept = rows[0];
        assert.ok(kept && kept.words > LARGE / 3, JSON.stringify(kept));
        assert.deepEqual(kept, {
          sent: variant.previews ? 1 + 3 + LARGE : 0,
          own: kept.words,
          words: kept.words,
        });
      });

      it("posts with their client's words, words saved on the page and a thread choice are claimed as listed, none read again", async () => {
        const given = await fixture.createPost("2030-01-01T00:00:00Z", [copies], {
          "mp-syndicate-text": { [copies]: "Words the client gave" },
        });
        const saved = await fixture.createPost("2030-01-01T00:01:00Z", [copies]);
        const threaded = await fixture.createPost("2030-01-01T00:02:00Z", [copies]);
        await fixture.syndication.copies.saveOwnText(saved, copies, "Words saved on the page");
        await fixture.syndication.copies.saveThreadChoice(threaded, copies, false);
        const counts = await batch(0);
        assert.equal(counts.readAgain, 0, JSON.stringify(timer.report()));
        const [target] = fixture.targets;
        assert.deepEqual(
          [given, saved, threaded].map((post) =>
            target?.callsFor(post.url).map((call) => [call.text, call.thread]),
          ),
          [
            [["Words the client gave", undefined]],
            [["Words saved on the page", undefined]],
            [[undefined, false]],
          ],
        );
      });
    });
