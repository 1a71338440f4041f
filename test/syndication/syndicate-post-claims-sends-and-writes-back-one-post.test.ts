// syndicate-post.ts called as a batch and a single-post request call it, on the real database: a
// post's claim carries what each target's attempt sends and its own words (decision 0081), and only
// while the post is as its page read it (decision 0080); the write-back carries the next post's claim
// only when nothing after its commit waits on the network, and adopts what that claim took when the
// statement's answer is lost (decision 0075); every refusal on the way is logged, never thrown.
// The slips these catch: an attempt that forgets its copy or its words, a claim of a post edited
// since it was read, a next post's rows left `sending` or claimed twice, a link never written back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import type { Logger } from "../../src/contract/logger.ts";
import type { PostSource } from "../../src/contract/post-source.ts";
import type { Post } from "../../src/contract/posts.ts";
import type { PostProperties, PreviewOptions } from "../../src/contract/syndicator.ts";
import { OwnTexts } from "../../src/syndication/copies/own-texts.ts";
import { databaseNow } from "../../src/syndication/database-now.ts";
import { Ledger } from "../../src/syndication/ledger/ledger.ts";
import {
  DRAFT_NOTE,
  type NextPost,
  type PostSyndicationContext,
  type PostSyndicationRun,
  type PreparedPost,
  preparePost,
  recordWhatIsSent,
  sendPrepared,
  syndicatePost,
  unconfiguredNote,
} from "../../src/syndication/runs/syndicate-post.ts";
import { engines } from "../helpers/databases.ts";
import {
  contentPreview,
  ledgerRow,
  openSyndication,
  publication,
  type SyndicationFixture,
  TestTarget,
} from "./syndication-fixture.ts";

/** A target whose copy names it and carries the words it is given, so that a mix-up shows. */
class NamingTarget extends TestTarget {
  preview(properties: PostProperties, _publication: unknown, words: PreviewOptions) {
    return {
      ...contentPreview(properties),
      text: `${this.info.uid} says: ${words.text ?? String(properties.content)}`,
    };
  }
}

/** A target whose preview throws: what it sends cannot be recorded, and it is sent all the same. */
class BrokenPreviewTarget extends TestTarget {
  preview(): never {
    throw new Error("the template is broken");
  }
}

const named = "https://named.example/@me";
const worded = "https://worded.example/@me";
const plain = "https://plain.example/@me";
const broken = "https://broken.example/@me";
const refusing = "https://refusing.example/@me";
const lost = "https://lost.example/@me";
const unconfigured = "https://gone.example/@me";

type Logged = { level: "warn" | "error"; message: string; fields: Record<string, unknown> | undefined };

/** A logger that keeps what it is told, for the warnings and errors a test expects (or none). */
function keptLogger(): { logger: Logger; logged: Logged[] } {
  const logged: Logged[] = [];
  return {
    logged,
    logger: {
      debug() {},
      info() {},
      warn: (message, fields) => logged.push({ level: "warn", message, fields }),
      error: (message, fields) => logged.push({ level: "error", message, fields }),
    },
  };
}

/**
 * The ledger's database, counting its statements (the post source writes on its own) and refusing
 * those `refuse` says, as a database that went away (or a statement it cannot run) would.
 */
function countedDatabase(database: Database) {
  const state = { statements: 0, refuse: (_sql: string): boolean => false };
  const counted: Database = {
    engine: database.engine,
    query(sql, params) {
      state.statements += 1;
      if (state.refuse(sql)) return Promise.reject(new Error("the ledger's database went away"));
      return database.query(sql, params);
    },
    exec: (sql) => database.exec(sql),
    transaction: (fn) => database.transaction(fn),
    close: () => database.close(),
  };
  return { counted, state };
}

const run: PostSyndicationRun = { runId: null, trigger: "batch", force: false };

for (const engine of engines)
  describe(`syndicatePost and sendPrepared claim, send and write back one post (${engine.name})`, () => {
    let fixture: SyndicationFixture<TestTarget>;
    const targets = [
      new NamingTarget(named),
      new NamingTarget(worded),
      new TestTarget(plain),
      new BrokenPreviewTarget(broken),
      new TestTarget(refusing, {
        behaviour: () => {
          throw Object.assign(new Error("503 Service Unavailable"), { status: 503 });
        },
      }),
      // Its answer lost, and no idempotency key honoured: the outcome is unknown.
      new TestTarget(lost, {
        behaviour: () => {
          throw Object.assign(new Error("the answer was lost"), { uncertain: true });
        },
      }),
    ];
    before(async () => {
      fixture = await openSyndication(engine, targets);
    });
    after(() => fixture.close());

    /** A context as the runs make one, on `posts` (the fixture's source unless a test changes it). */
    const contextOf = (posts: PostSource = fixture.posts) => {
      const { counted, state } = countedDatabase(fixture.database);
      const { logger, logged } = keptLogger();
      const context: PostSyndicationContext = {
        ledger: new Ledger(counted, undefined, databaseNow(fixture.clock.now)),
        posts,
        syndicators: targets,
        publication,
        logger,
        holder: "this-run",
        targetTimeoutMs: 30_000,
        ownTexts: new OwnTexts(fixture.database, fixture.posts),
        now: fixture.clock.now,
      };
      return { context, state, logged };
    };
    const errorsOf = (logged: Logged[]) => logged.filter((entry) => entry.level === "error");
    const prepared = async (context: PostSyndicationContext, post: Post): Promise<PreparedPost> => {
      const ready = await preparePost(context, post, run);
      assert.ok("claim" in ready, `${post.url} is prepared: ${JSON.stringify(ready)}`);
      return ready;
    };
    /** Sends `post` with `next` beside it, its own claim run first (as a batch's first post). */
    const sendWithNext = async (context: PostSyndicationContext, post: Post, next?: NextPost) => {
      const ready = await prepared(context, post);
      return sendPrepared(context, ready, run, context.ledger.runClaim(ready.claim), next);
    };
    /**
     * Sends `post` under its own claim, run first, with `next` beside it, counting from zero again
     * after the next post's own reads: `state.statements` then holds what the outcomes and the next
     * post's claim cost the ledger.
     */
    const sendBesideNextCounted = async (
      context: PostSyndicationContext,
      state: { statements: number },
      post: Post,
      next: Post,
    ) => {
      const ready = await prepared(context, post);
      const claims = await context.ledger.runClaim(ready.claim);
      state.statements = 0;
      let nextReady: PreparedPost | undefined;
      const outcome = await sendPrepared(context, ready, run, Promise.resolve(claims), async () => {
        nextReady = await prepared(context, next);
        state.statements = 0;
        return nextReady;
      });
      return { outcome, nextReady };
    };
    const attemptsOf = async (postId: string) => {
      const { rows } = await fixture.database.query<{
        target_uid: string;
        sent: { text: string | null; photos: unknown[] } | string | null;
        own_text: string | null;
      }>(
        `SELECT target_uid, sent, own_text FROM syndication_attempts WHERE post_id = $1::bigint
          ORDER BY id`,
        [postId],
      );
      const parse = (sent: (typeof rows)[number]["sent"]) =>
        typeof sent === "string" ? (JSON.parse(sent) as { text: string | null; photos: unknown[] }) : sent;
      return rows.map((row) => ({ uid: row.target_uid, sent: parse(row.sent), ownText: row.own_text }));
    };
    const claimedBy = async (postId: string) => {
      const { rows } = await fixture.database.query<{
        target_uid: string;
        state: string;
        claimed_by: string;
      }>(
        `SELECT target_uid, state, claimed_by FROM syndication_targets WHERE post_id = $1::bigint
          ORDER BY target_uid`,
        [postId],
      );
      return rows.map((row) => [row.target_uid, row.state, row.claimed_by]);
    };
    const reread = async (post: Post): Promise<Post> => {
      const found = await fixture.posts.findById(post.id);
      assert.ok(found);
      return found;
    };

    it("each claimed target's attempt carries its own copy and own words; a target that cannot preview carries none", async () => {
      const post = await fixture.createPost("2025-01-01T00:00:00Z", [named, worded, plain], {
        "mp-syndicate-text": { [worded]: "Worded's own words" },
      });
      const { context, logged } = contextOf();
      const result = await syndicatePost(context, post, { ...run, trigger: "manual" });
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.name, target.status]),
        [
          [named, `Target ${named}`, "syndicated"],
          [worded, `Target ${worded}`, "syndicated"],
          [plain, `Target ${plain}`, "syndicated"],
        ],
      );
      assert.equal(result.url, post.url);
      const attempts = await attemptsOf(post.id);
      const of = (uid: string) => attempts.find((attempt) => attempt.uid === uid);
      assert.equal(attempts.length, 3, JSON.stringify(attempts));
      assert.equal(of(named)?.sent?.text, `${named} says: ${String(post.properties.content)}`);
      assert.equal(of(named)?.ownText, null);
      assert.equal(of(worded)?.sent?.text, `${worded} says: Worded's own words`);
      assert.equal(of(worded)?.ownText, "Worded's own words");
      assert.equal(of(plain)?.sent, null, "a target that cannot preview has no copy recorded");
      assert.equal(of(plain)?.ownText, null);
      assert.deepEqual(logged, []);
    });

    it("a target whose preview throws is sent all the same, its attempt with no copy, and the failure is logged with the post, target and error", async () => {
      const post = await fixture.createPost("2025-01-02T00:00:00Z", [broken]);
      const { context, logged } = contextOf();
      const result = await syndicatePost(context, post, { ...run, trigger: "manual" });
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.status]),
        [[broken, "syndicated"]],
      );
      assert.deepEqual(await attemptsOf(post.id), [{ uid: broken, sent: null, ownText: null }]);
      const warnings = logged.filter((entry) => entry.message === "Could not record what an attempt sends");
      assert.ok(warnings.length >= 1, JSON.stringify(logged));
      for (const warning of warnings) {
        assert.equal(warning.level, "warn");
        assert.deepEqual(warning.fields, { post: post.url, target: broken, error: "the template is broken" });
      }
    });

    it("claims only the targets it may send: a target nobody configured and one that has the post are reported without a claim", async () => {
      const post = await fixture.createPost("2025-01-03T00:00:00Z", [named, unconfigured]);
      const { context, logged } = contextOf();
      const first = await syndicatePost(context, post, { ...run, trigger: "manual" });
      assert.deepEqual(
        first.targets.map((target) => [target.uid, target.status, target.error]),
        [
          [named, "syndicated", undefined],
          [unconfigured, "skipped", unconfiguredNote(unconfigured)],
        ],
      );
      // The user names the target again, whose copy the post links already.
      await fixture.posts.update(post.url, { add: { "mp-syndicate-to": [named] } });
      const again = await syndicatePost(context, await reread(post), { ...run, trigger: "manual" });
      assert.deepEqual(
        again.targets.map((target) => [target.uid, target.status]),
        [
          [unconfigured, "skipped"],
          [named, "already_syndicated"],
        ],
      );
      assert.deepEqual(
        (await claimedBy(post.id)).map(([uid, state]) => [uid, state]),
        [[named, "syndicated"]],
        "no row for the unconfigured target",
      );
      assert.equal(targets[0]?.callsFor(post.url).length, 1);
      // Naming a target that has the post is undone: the post stops naming it (a removal alone).
      const after = await reread(post);
      assert.deepEqual(after.properties["mp-syndicate-to"] ?? [], [unconfigured]);
      assert.deepEqual(errorsOf(logged), []);
    });

    it("a draft is answered at once: nothing claimed, nothing sent", async () => {
      const draft = await fixture.createPost("2025-01-04T00:00:00Z", [named], { "post-status": "draft" });
      const post = await reread(draft);
      assert.equal(post.status, "draft");
      const { context } = contextOf();
      const result = await syndicatePost(context, post, run);
      assert.deepEqual(result, {
        url: post.url,
        status: "unchanged",
        syndication: [],
        targets: [{ uid: named, name: `Target ${named}`, status: "skipped", error: DRAFT_NOTE }],
      });
      assert.deepEqual(await claimedBy(post.id), []);
    });

    it("read with its page, a post is claimed while it is as read, the page's own words and the client's alike", async () => {
      const post = await fixture.createPost("2025-01-05T00:00:00Z", [named, worded], {
        "mp-syndicate-text": { [worded]: "The client's words" },
      });
      const ownTexts = new OwnTexts(fixture.database, fixture.posts);
      await ownTexts.save(post, named, "The page's words");
      const { context, logged } = contextOf();
      const listed = await reread(post);
      const known = {
        entries: await context.ledger.entriesForPost(post.id),
        ownTexts: await ownTexts.forPost(listed),
        threadChoices: new Map<string, boolean>(),
      };
      const result = await syndicatePost(context, listed, run, known);
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.status]),
        [
          [named, "syndicated"],
          [worded, "syndicated"],
        ],
      );
      const attempts = await attemptsOf(post.id);
      assert.deepEqual(attempts.map((attempt) => [attempt.uid, attempt.ownText]).sort(), [
        [named, "The page's words"],
        [worded, "The client's words"],
      ]);
      assert.deepEqual(errorsOf(logged), []);
    });

    it("read with its page and edited since: the claim takes nothing and the target is reported by its name, unsent", async () => {
      const post = await fixture.createPost("2025-01-06T00:00:00Z", [named]);
      const { context } = contextOf();
      const listed = await reread(post);
      const known = {
        entries: await context.ledger.entriesForPost(post.id),
        ownTexts: new Map(),
        threadChoices: new Map<string, boolean>(),
      };
      await fixture.posts.update(post.url, { replace: { content: ["Edited while the batch ran"] } });
      const result = await syndicatePost(context, listed, run, known);
      assert.deepEqual(
        result.targets.map((target) => [target.uid, target.name, target.status]),
        [[named, `Target ${named}`, "skipped"]],
      );
      assert.equal(targets[0]?.callsFor(post.url).length, 0);
      assert.deepEqual(await claimedBy(post.id), []);
    });

    it("a target handed to sendPrepared without a decision is reported unclaimed, never sent", async () => {
      const post = await fixture.createPost("2025-01-07T00:00:00Z", [named]);
      const { context } = contextOf();
      const ready = await prepared(context, post);
      const outcome = await sendPrepared(
        context,
        { ...ready, uids: [...ready.uids, unconfigured] },
        run,
        context.ledger.runClaim(ready.claim),
      );
      assert.deepEqual(
        outcome.result.targets.map((target) => [target.uid, target.name, target.status]),
        [
          [named, `Target ${named}`, "syndicated"],
          [unconfigured, unconfigured, "skipped"],
        ],
      );
      assert.equal("next" in outcome, false, "no next post was asked for");
    });

    it("an edit's record keeps the copy with the photos the edit kept; a target that cannot preview records nothing", async () => {
      const post = await fixture.createPost("2025-01-08T00:00:00Z", [named, plain]);
      const { context, logged } = contextOf();
      const claims = await context.ledger.claimPost({
        postId: post.id,
        targets: [
          { targetUid: named, idempotencyKey: "edit-named" },
          { targetUid: plain, idempotencyKey: "edit-plain" },
        ],
        holder: "this-run",
        runId: null,
        trigger: "manual",
      });
      const kept = [{ url: "https://example.org/photo.jpg", alt: "A photo the copy keeps" }];
      const [namedTarget, , plainTarget] = targets;
      assert.ok(namedTarget && plainTarget);
      for (const [target, uid] of [
        [namedTarget, named],
        [plainTarget, plain],
      ] as const) {
        const claim = claims.get(uid);
        assert.ok(claim);
        await recordWhatIsSent(context, target, post, claim, {}, kept);
      }
      const attempts = await attemptsOf(post.id);
      const of = (uid: string) => attempts.find((attempt) => attempt.uid === uid);
      assert.equal(of(named)?.sent?.text, `${named} says: ${String(post.properties.content)}`);
      assert.deepEqual(of(named)?.sent?.photos, kept);
      assert.equal(of(plain)?.sent, null, "nothing is recorded for a target that cannot preview");
      assert.deepEqual(logged, []);
    });

    it("nothing to write back: the next post's claim rides the outcomes' statement, the ledger's only one, under its own tokens", async () => {
      const failing = await fixture.createPost("2025-02-01T00:00:00Z", [refusing, lost]);
      const next = await fixture.createPost("2025-02-01T00:01:00Z", [named, plain]);
      // Nothing waits on the network after the outcomes: the source need not promise it.
      const { context, state, logged } = contextOf({ ...fixture.posts, returnsOnCommit: undefined });
      const { outcome, nextReady } = await sendBesideNextCounted(context, state, failing, next);
      assert.equal(state.statements, 1, "the outcomes and the next claim are one statement");
      assert.equal(fixture.updates.get(failing.url), undefined, "the post has nothing to write back");
      // An unknown outcome is told as the ledger recorded it, read from the statement's answer.
      assert.deepEqual(
        outcome.result.targets.map((target) => [target.uid, target.status, target.error]),
        [
          [refusing, "failed", "503 Service Unavailable"],
          [lost, "failed", "the answer was lost; unknown: check the target"],
        ],
      );
      assert.equal((await ledgerRow(fixture.database, failing.id, refusing))?.state, "failed");
      assert.equal((await ledgerRow(fixture.database, failing.id, lost))?.state, "unknown");
      assert.ok(nextReady);
      assert.equal(outcome.next?.prepared, nextReady);
      const tokens = nextReady.claim.tokens;
      assert.deepEqual(
        [...(outcome.next?.claims ?? [])].map(([uid, claim]) => [uid, claim.token]),
        [
          [named, tokens.get(named)],
          [plain, tokens.get(plain)],
        ],
      );
      assert.deepEqual(await claimedBy(next.id), [
        [named, "sending", tokens.get(named)],
        [plain, "sending", tokens.get(plain)],
      ]);
      // The next post is sent under the claims that rode.
      const sent = await sendPrepared(
        context,
        nextReady,
        run,
        Promise.resolve(outcome.next?.claims ?? new Map()),
      );
      assert.deepEqual(
        sent.result.targets.map((target) => target.status),
        ["syndicated", "syndicated"],
      );
      assert.deepEqual(errorsOf(logged), []);
    });

    it("links to write back, on a source that returns on commit: the next claim rides the write-back, and the ledger makes no statement", async () => {
      const current = await fixture.createPost("2025-02-02T00:00:00Z", [named]);
      const next = await fixture.createPost("2025-02-02T00:01:00Z", [plain]);
      const { context, state, logged } = contextOf({ ...fixture.posts, returnsOnCommit: () => true });
      const { outcome, nextReady } = await sendBesideNextCounted(context, state, current, next);
      assert.equal(state.statements, 0, "the outcomes and the claim rode the post's own write-back");
      const url = outcome.result.targets[0]?.url;
      assert.ok(url);
      assert.deepEqual(outcome.result.syndication, [url]);
      const written = await reread(current);
      assert.deepEqual(written.properties.syndication, [url]);
      assert.deepEqual(written.properties["mp-syndicate-to"] ?? [], []);
      assert.ok(nextReady);
      assert.deepEqual(
        [...(outcome.next?.claims ?? [])].map(([uid, claim]) => [uid, claim.token]),
        [[plain, nextReady.claim.tokens.get(plain)]],
      );
      await sendPrepared(context, nextReady, run, Promise.resolve(outcome.next?.claims ?? new Map()));
      assert.equal((await ledgerRow(fixture.database, next.id, plain))?.state, "syndicated");
      assert.deepEqual(errorsOf(logged), []);
    });

    it("links to write back, on a source that does not promise to return on commit or cannot write alongside: the next post is not even prepared", async () => {
      const sources: [string, Partial<PostSource>][] = [
        ["no promise", { returnsOnCommit: undefined }],
        ["no return on commit", { returnsOnCommit: () => false }],
        ["no write-back alongside", { returnsOnCommit: () => true, updateAlongside: undefined }],
      ];
      for (const [what, change] of sources) {
        const current = await fixture.createPost("2025-02-03T00:00:00Z", [named]);
        const { context, logged } = contextOf({ ...fixture.posts, ...change });
        let asked = 0;
        const outcome = await sendWithNext(context, current, async () => {
          asked += 1;
          return undefined;
        });
        assert.equal(asked, 0, what);
        assert.equal("next" in outcome, false);
        assert.equal(outcome.result.targets[0]?.status, "syndicated");
        assert.deepEqual(errorsOf(logged), []);
      }
    });

    it("a next post with nothing to claim comes back with no claims; none at all, or one that cannot be prepared, comes back as nothing", async () => {
      const { context, logged } = contextOf();
      const lonely = await fixture.createPost("2025-02-04T00:00:00Z", [unconfigured]);
      const lonelyReady = await prepared(context, lonely);
      const withNothing = await sendWithNext(
        context,
        await fixture.createPost("2025-02-04T00:01:00Z", [refusing]),
        async () => lonelyReady,
      );
      assert.equal(withNothing.next?.prepared, lonelyReady);
      assert.equal(withNothing.next?.claims.size, 0);
      assert.equal(withNothing.result.targets[0]?.status, "failed");

      const none = await sendWithNext(
        context,
        await fixture.createPost("2025-02-04T00:02:00Z", [refusing]),
        async () => undefined,
      );
      assert.equal("next" in none, false);
      assert.deepEqual(errorsOf(logged), []);

      const current = await fixture.createPost("2025-02-04T00:03:00Z", [refusing]);
      const failed = await sendWithNext(context, current, async () => {
        throw new Error("the next page could not be read");
      });
      assert.equal("next" in failed, false);
      assert.equal((await ledgerRow(fixture.database, current.id, refusing))?.state, "failed");
      assert.deepEqual(errorsOf(logged), [
        {
          level: "error",
          message: "Could not prepare a batch's next post",
          fields: { error: "the next page could not be read" },
        },
      ]);
    });

    it("a write-back that throws after its commit: what the next claim took is adopted by its tokens with one read", async () => {
      const current = await fixture.createPost("2025-02-05T00:00:00Z", [named]);
      const next = await fixture.createPost("2025-02-05T00:01:00Z", [named, plain]);
      const source: PostSource = {
        ...fixture.posts,
        returnsOnCommit: () => true,
        async updateAlongside(url, change, alongside) {
          await fixture.posts.updateAlongside?.(url, change, alongside);
          throw new Error("the store refused after the commit");
        },
      };
      const { context, state, logged } = contextOf(source);
      const { outcome, nextReady } = await sendBesideNextCounted(context, state, current, next);
      // The outcomes once more (they change nothing twice), then the claim read back: no claim again.
      assert.equal(state.statements, 2);
      assert.ok(nextReady);
      const tokens = nextReady.claim.tokens;
      assert.deepEqual([...(outcome.next?.claims ?? [])].map(([uid, claim]) => [uid, claim.token]).sort(), [
        [named, tokens.get(named)],
        [plain, tokens.get(plain)],
      ]);
      const url = outcome.result.targets[0]?.url;
      assert.ok(url);
      assert.deepEqual(outcome.result.syndication, [url], "the link as the ledger holds it");
      assert.deepEqual(errorsOf(logged), [
        {
          level: "error",
          message: "Could not write the syndication URLs back to the post",
          fields: { post: current.url, error: "the store refused after the commit" },
        },
      ]);
      await sendPrepared(context, nextReady, run, Promise.resolve(outcome.next?.claims ?? new Map()));
      assert.deepEqual(
        (await claimedBy(next.id)).map(([uid, state]) => [uid, state]),
        [
          [named, "syndicated"],
          [plain, "syndicated"],
        ],
      );
      assert.equal(targets[0]?.callsFor(next.url).length, 1);
      assert.equal(targets[2]?.callsFor(next.url).length, 1);
    });

    it("a write-back undone whole: the next post's targets are claimed afresh, and the post's link waits for the next run", async () => {
      const current = await fixture.createPost("2025-02-06T00:00:00Z", [named]);
      const next = await fixture.createPost("2025-02-06T00:01:00Z", [named, plain]);
      const source: PostSource = {
        ...fixture.posts,
        returnsOnCommit: () => true,
        async updateAlongside() {
          throw new Error("the database went away for a moment");
        },
      };
      const { context, logged } = contextOf(source);
      let nextReady: PreparedPost | undefined;
      const outcome = await sendWithNext(context, current, async () => {
        nextReady = await prepared(context, next);
        return nextReady;
      });
      assert.ok(nextReady);
      const claims = outcome.next?.claims ?? new Map();
      assert.deepEqual([...claims.keys()].sort(), [named, plain]);
      assert.deepEqual(await claimedBy(next.id), [
        [named, "sending", claims.get(named)?.token],
        [plain, "sending", claims.get(plain)?.token],
      ]);
      assert.equal((await ledgerRow(fixture.database, current.id, named))?.state, "syndicated");
      assert.equal((await reread(current)).properties.syndication, undefined);
      assert.equal(errorsOf(logged)[0]?.message, "Could not write the syndication URLs back to the post");
      await sendPrepared(context, nextReady, run, Promise.resolve(claims));
      assert.equal((await ledgerRow(fixture.database, next.id, plain))?.state, "syndicated");
    });

    it("a combined statement refused: the outcomes are recorded alone, and the next post's targets claimed afresh", async () => {
      const failing = await fixture.createPost("2025-02-10T00:00:00Z", [refusing]);
      const next = await fixture.createPost("2025-02-10T00:01:00Z", [named, plain]);
      const { context, state, logged } = contextOf();
      const ready = await prepared(context, failing);
      const claims = await context.ledger.runClaim(ready.claim);
      let nextReady: PreparedPost | undefined;
      // Only the statement that carries the next post's claim (its expressions named apart).
      state.refuse = (sql) => sql.includes("next_claimed");
      const outcome = await sendPrepared(context, ready, run, Promise.resolve(claims), async () => {
        nextReady = await prepared(context, next);
        return nextReady;
      });
      state.refuse = () => false;
      assert.deepEqual(
        outcome.result.targets.map((target) => [target.uid, target.status, target.error]),
        [[refusing, "failed", "503 Service Unavailable"]],
      );
      assert.equal((await ledgerRow(fixture.database, failing.id, refusing))?.state, "failed");
      assert.ok(nextReady);
      const nextClaims = outcome.next?.claims ?? new Map();
      assert.deepEqual(
        (await claimedBy(next.id)).map(([uid, state, token]) => [uid, state, token]),
        [
          [named, "sending", nextClaims.get(named)?.token],
          [plain, "sending", nextClaims.get(plain)?.token],
        ],
      );
      await sendPrepared(context, nextReady, run, Promise.resolve(nextClaims));
      assert.equal((await ledgerRow(fixture.database, next.id, named))?.state, "syndicated");
      assert.deepEqual(errorsOf(logged), []);
    });

    it("a ledger that refuses after the sends: the link is written to the post all the same, and a next claim whose answer is lost is told", async () => {
      const current = await fixture.createPost("2025-02-07T00:00:00Z", [named]);
      const source: PostSource = {
        ...fixture.posts,
        async updateAlongside() {
          throw new Error("the database went away for a moment");
        },
      };
      const { context, state, logged } = contextOf(source);
      const ready = await prepared(context, current);
      const claims = await context.ledger.runClaim(ready.claim);
      state.refuse = () => true;
      const outcome = await sendPrepared(context, ready, run, Promise.resolve(claims));
      state.refuse = () => false;
      const url = outcome.result.targets[0]?.url;
      assert.ok(url);
      assert.deepEqual((await reread(current)).properties.syndication, [url]);
      assert.deepEqual(outcome.result.syndication, [url]);
      assert.ok(!errorsOf(logged).some((entry) => entry.message.startsWith("Could not write")));

      // Nothing to write back, and the combined statement refused: the next claim cannot be known.
      const failing = await fixture.createPost("2025-02-07T00:01:00Z", [refusing]);
      const next = await fixture.createPost("2025-02-07T00:02:00Z", [plain]);
      const alone = contextOf();
      const failingReady = await prepared(alone.context, failing);
      const failingClaims = await alone.context.ledger.runClaim(failingReady.claim);
      const nextReady = await prepared(alone.context, next);
      alone.state.refuse = () => true;
      const told = await sendPrepared(
        alone.context,
        failingReady,
        run,
        Promise.resolve(failingClaims),
        async () => nextReady,
      );
      alone.state.refuse = () => false;
      assert.equal("next" in told, false);
      assert.deepEqual(
        errorsOf(alone.logged).find(
          (entry) => entry.message === "Could not learn what the next post's claim took",
        ),
        {
          level: "error",
          message: "Could not learn what the next post's claim took",
          fields: { post: next.url, error: "the ledger's database went away" },
        },
      );
    });

    it("a source without a write-back alongside: the outcomes, then the links; one whose plain update refuses writes alongside alone", async () => {
      const first = await fixture.createPost("2025-02-08T00:00:00Z", [named]);
      const separate = contextOf({ ...fixture.posts, updateAlongside: undefined });
      const one = await syndicatePost(separate.context, first, run);
      const firstUrl = one.targets[0]?.url;
      assert.ok(firstUrl);
      assert.deepEqual((await reread(first)).properties.syndication, [firstUrl]);
      assert.equal((await ledgerRow(fixture.database, first.id, named))?.state, "syndicated");
      assert.deepEqual(errorsOf(separate.logged), []);

      const second = await fixture.createPost("2025-02-08T00:01:00Z", [named]);
      const alongside = contextOf({
        ...fixture.posts,
        async update() {
          throw new Error("this source writes only alongside");
        },
      });
      const two = await syndicatePost(alongside.context, second, run);
      const secondUrl = two.targets[0]?.url;
      assert.ok(secondUrl);
      assert.deepEqual((await reread(second)).properties.syndication, [secondUrl]);
      assert.deepEqual(errorsOf(alongside.logged), []);
    });

    it("a copy whose link never reached the post is written back once the post stops naming its target (a link alone)", async () => {
      const post = await fixture.createPost("2025-02-09T00:00:00Z", [named]);
      const refused = async (): Promise<never> => {
        throw new Error("the database went away");
      };
      const lost = contextOf({ ...fixture.posts, update: refused, updateAlongside: refused });
      const sent = await syndicatePost(lost.context, post, run);
      const url = sent.targets[0]?.url;
      assert.ok(url);
      assert.equal((await reread(post)).properties.syndication, undefined);
      await fixture.posts.update(post.url, { delete: { "mp-syndicate-to": [named] } });
      const { context } = contextOf();
      const repaired = await syndicatePost(context, await reread(post), run);
      assert.deepEqual(
        repaired.targets.map((target) => [target.uid, target.status]),
        [[named, "already_syndicated"]],
      );
      assert.deepEqual((await reread(post)).properties.syndication, [url]);
      assert.equal(targets[0]?.callsFor(post.url).length, 1);
    });
  });
