// A batch's walk with its ports as fakes and a scripted runner (decisions 0075 and 0080): each post is
// sent with the next post offered to ride its write-back, and the claim that rode it is handed to that
// post; a stop lets a claimed post go out and begins nothing more; a post whose claim found it changed
// since its page is read again and sent as it is now only while it still awaits syndication and no
// stop was asked for; a post that throws is reported failed by each of its targets. A slip sends a
// post twice, as it was listed rather than as it is, after a stop, or never.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Logger } from "../../contract/logger.ts";
import type { PostSource } from "../../contract/post-source.ts";
import type { AwaitingCursor, Post } from "../../contract/posts.ts";
import type { StaleResolution } from "../ledger/claims.ts";
import type { Ledger } from "../ledger/ledger.ts";
import type { PostResult, SyndicationEvent } from "../types.ts";
import { Batch } from "./batch.ts";
import type { HeldLease } from "./lease.ts";
import type { PostRunner, SentBefore } from "./post-runner.ts";
import type { RunLog } from "./run-log.ts";
import type { ClaimedNext, KnownOfPost, NextPost, PreparedPost } from "./syndicate-post.ts";

const TARGET = "https://social.example/@me";

function post(id: number, properties: Record<string, unknown> = {}, fields: Partial<Post> = {}): Post {
  const published = new Date(Date.UTC(2026, 10, 29, 10, id));
  return {
    id: String(id),
    url: `https://site.example/${id}`,
    properties: { content: `Post ${id}`, "mp-syndicate-to": [TARGET], ...properties },
    status: "published",
    published,
    created: published,
    updated: published,
    deleted: false,
    ...fields,
  };
}

/** What the page read beside a post: told apart by post, so that a mix-up shows. */
function knownOf(id: string): KnownOfPost {
  return { entries: [], ownTexts: new Map(), threadChoices: new Map([[`https://t.example/${id}`, true]]) };
}

function sent(url: string): PostResult {
  return { url, status: "syndicated", syndication: [`${TARGET}/copy?of=${url}`], targets: [] };
}

/** What a write-back "claimed" of the next post: the prepared post and no real claims. */
function claimOf(prepared: PreparedPost): ClaimedNext {
  return { prepared, claims: new Map() };
}

type Send = (
  post: Post,
  known: KnownOfPost | undefined,
  next: NextPost,
  claimed: ClaimedNext | undefined,
) => Promise<SentBefore>;

/**
 * A batch on fakes. `send` answers for each post (by default: sent, with the next post prepared and
 * claimed as a write-back would); every call to the runner and the post source is recorded.
 */
function batchOf(
  listed: Post[],
  options: {
    send?: Send;
    current?: Map<string, Post | null>;
    stale?: StaleResolution[];
    /** The changed posts' follow-ups, a batch's first part (by default: none, and not stopped). */
    follow?: (report: (result: PostResult) => void, shouldStop: () => boolean) => Promise<boolean>;
    /** The run log or the lease refusing a write: the run's start, its end, the lease's release. */
    refuse?: "start" | "end" | "release";
  } = {},
) {
  const calls: unknown[][] = [];
  const events: SyndicationEvent[] = [];
  const logged: [string, string, Record<string, unknown> | undefined][] = [];
  const refused = (what: string) => {
    if (options.refuse === what) throw new Error(`the database refused the ${what}`);
  };
  const lease = {
    runId: "41",
    lost: false,
    onLost: undefined as (() => void) | undefined,
    keepAlive(onLost: () => void) {
      lease.onLost = onLost;
    },
    async release() {
      refused("release");
    },
  };
  const finished: [string, string][] = [];
  const log =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      logged.push([level, message, fields]);
    };
  const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  const posts = {
    async nextAwaitingSyndication(
      cursor: AwaitingCursor | undefined,
      _limit: number,
      only?: readonly string[],
    ) {
      calls.push(["list", cursor?.id, only]);
      return listed.filter((p) => !cursor || p.id > cursor.id);
    },
    async findById(id: string) {
      calls.push(["findById", id]);
      return options.current?.get(id) ?? null;
    },
  } as Pick<PostSource, "nextAwaitingSyndication" | "findById"> as PostSource;
  const defaultSend: Send = async (sending, _known, next) => {
    const prepared = await next();
    return { result: sent(sending.url), ...(prepared ? { next: claimOf(prepared) } : {}) };
  };
  const runner = {
    async knownOf(page: readonly Post[]) {
      return new Map(page.map((p) => [p.id, knownOf(p.id)]));
    },
    async followChangedPosts(report: (result: PostResult) => void, shouldStop: () => boolean) {
      return options.follow ? options.follow(report, shouldStop) : true;
    },
    async syndicateBefore(
      sending: Post,
      known: KnownOfPost | undefined,
      next: NextPost | undefined,
      claimed?: ClaimedNext,
    ) {
      calls.push(["send", sending, known, claimed]);
      assert.ok(next, "a batch's post is always offered its next post");
      return (options.send ?? defaultSend)(sending, known, next, claimed);
    },
    async prepareNext(next: Post, known: KnownOfPost | undefined) {
      calls.push(["prepareNext", next.id, known]);
      return { post: next } as PreparedPost;
    },
  } as Pick<PostRunner, "knownOf" | "followChangedPosts" | "syndicateBefore" | "prepareNext"> as PostRunner;
  const batch = new Batch(
    {
      posts,
      ledger: { resolveStale: async () => options.stale ?? [] } as Pick<Ledger, "resolveStale"> as Ledger,
      runLog: {
        async abandonDead() {
          refused("start");
          return 0;
        },
        async finish(runId: string, status: string) {
          refused("end");
          finished.push([runId, status]);
        },
      } as Pick<RunLog, "abandonDead" | "finish"> as RunLog,
      logger,
      lease: lease as unknown as HeldLease,
      staleMs: 60_000,
      idempotentUids: () => [],
      targetUids: () => [TARGET],
      runner,
      emit: (event) => events.push(event),
    },
    "manual",
  );
  const sends = () => calls.filter((call) => call[0] === "send");
  const sentIds = () => sends().map((call) => (call[1] as Post).id);
  const statusOf = () => events.flatMap((event) => (event.type === "run-finished" ? [event.status] : []));
  return { batch, calls, sends, sentIds, events, logged, finished, statusOf, lease };
}

async function resultsOf(batch: Batch): Promise<PostResult[]> {
  const results: PostResult[] = [];
  for await (const result of batch.results) results.push(result);
  await batch.done;
  return results;
}

describe("a batch's walk", () => {
  it("sends each post with the next one offered to its write-back, and hands that post the claim it took", async () => {
    const listed = [post(1), post(2), post(3)];
    const { batch, calls, statusOf, finished } = batchOf(listed);
    const results = await resultsOf(batch);
    assert.deepEqual(
      results.map((result) => result.url),
      listed.map((p) => p.url),
    );
    const prepared = (id: string) => claimOf({ post: listed.find((p) => p.id === id) } as PreparedPost);
    assert.deepEqual(
      calls.filter((call) => call[0] !== "list"),
      [
        ["send", listed[0], knownOf("1"), undefined],
        ["prepareNext", "2", knownOf("2")],
        ["send", listed[1], knownOf("2"), prepared("2")],
        ["prepareNext", "3", knownOf("3")],
        ["send", listed[2], knownOf("3"), prepared("3")],
      ],
    );
    assert.deepEqual(calls[0], ["list", undefined, [TARGET]], "only posts naming a configured target");
    assert.deepEqual(statusOf(), ["finished"]);
    assert.deepEqual(finished, [["41", "finished"]]);
    assert.equal(batch.finished, true);
  });

  it("reports nothing of a post held back, and takes the next one at its turn when nothing was claimed", async () => {
    const listed = [post(1), post(2)];
    const { batch, sends } = batchOf(listed, { send: async () => ({ result: null }) });
    assert.deepEqual(await resultsOf(batch), []);
    assert.deepEqual(
      sends().map((call) => [(call[1] as Post).id, call[3]]),
      [
        ["1", undefined],
        ["2", undefined],
      ],
    );
  });

  it("sends a post whose claim rode the write-back after a stop, offers it no next post, and begins nothing more", async () => {
    const listed = [post(1), post(2), post(3)];
    let offered: unknown = "not asked";
    const fixture = batchOf(listed, {
      send: async (sending, _known, next) => {
        if (sending.id === "1") {
          const prepared = await next();
          fixture.batch.stop();
          return { result: sent(sending.url), ...(prepared ? { next: claimOf(prepared) } : {}) };
        }
        offered = await next();
        return { result: sent(sending.url) };
      },
    });
    const results = await resultsOf(fixture.batch);
    assert.deepEqual(fixture.sentIds(), ["1", "2"]);
    assert.deepEqual(
      results.map((result) => result.url),
      [listed[0]?.url, listed[1]?.url],
    );
    assert.equal(offered, undefined, "a stopping run claims no next post");
    assert.deepEqual(
      fixture.calls.filter((call) => call[0] === "prepareNext").map((call) => call[1]),
      ["2"],
    );
    assert.deepEqual(fixture.statusOf(), ["abandoned"]);
    assert.deepEqual(fixture.finished, [["41", "abandoned"]]);
  });

  it("begins no post once asked to stop when none was claimed", async () => {
    const fixture = batchOf([post(1), post(2)], {
      send: async (sending) => {
        fixture.batch.stop();
        return { result: sent(sending.url) };
      },
    });
    await resultsOf(fixture.batch);
    assert.deepEqual(fixture.sentIds(), ["1"]);
    assert.deepEqual(fixture.statusOf(), ["abandoned"]);
  });

  it("reads a post found changed since its page again and sends it as it is now, with the same next post", async () => {
    const listed = [post(1), post(2)];
    const edited = post(1, { content: "Edited" });
    const nexts: NextPost[] = [];
    const fixture = batchOf(listed, {
      current: new Map([["1", edited]]),
      send: async (sending, known, next) => {
        nexts.push(next);
        if (sending === listed[0]) return { changed: true };
        const prepared = await next();
        return {
          result: { ...sent(sending.url), status: known ? "syndicated" : "partial" },
          ...(prepared ? { next: claimOf(prepared) } : {}),
        };
      },
    });
    const results = await resultsOf(fixture.batch);
    assert.deepEqual(
      fixture.sends().map((call) => [call[1], call[2], call[3]]),
      [
        [listed[0], knownOf("1"), undefined],
        [edited, undefined, undefined],
        [listed[1], knownOf("2"), claimOf({ post: listed[1] } as PreparedPost)],
      ],
    );
    assert.equal(nexts[0], nexts[1], "the post read again offers the same next post");
    assert.deepEqual(
      results.map((result) => [result.url, result.status]),
      [
        [edited.url, "partial"],
        [listed[1]?.url, "syndicated"],
      ],
    );
    assert.deepEqual(
      fixture.calls.filter((call) => call[0] === "findById"),
      [["findById", "1"]],
    );
  });

  for (const [why, now] of [
    ["gone", null],
    ["made a draft", post(1, {}, { status: "draft" })],
    ["deleted", post(1, {}, { deleted: true })],
    ["made private", post(1, { visibility: "private" })],
    ["unlisted", post(1, { visibility: "unlisted" })],
    ["naming no target any more", post(1, { "mp-syndicate-to": [] })],
  ] as const)
    it(`neither sends nor reports a post found changed and read again ${why}`, async () => {
      const listed = [post(1), post(2)];
      const fixture = batchOf(listed, {
        current: new Map([["1", now]]),
        send: async (sending) => (sending === listed[0] ? { changed: true } : { result: sent(sending.url) }),
      });
      const results = await resultsOf(fixture.batch);
      assert.deepEqual(fixture.sentIds(), ["1", "2"]);
      assert.deepEqual(
        results.map((result) => result.url),
        [listed[1]?.url],
      );
    });

  it("does not read again a post found changed once the run is asked to stop", async () => {
    const fixture = batchOf([post(1), post(2)], {
      current: new Map([["1", post(1, { content: "Edited" })]]),
      send: async () => {
        fixture.batch.stop();
        return { changed: true };
      },
    });
    assert.deepEqual(await resultsOf(fixture.batch), []);
    assert.deepEqual(fixture.sentIds(), ["1"]);
    assert.deepEqual(
      fixture.calls.filter((call) => call[0] === "findById"),
      [],
    );
    assert.deepEqual(fixture.statusOf(), ["abandoned"]);
  });

  it("reports a post whose send threw as failed by each target it names, and goes on", async () => {
    const listed = [
      post(1, {
        "mp-syndicate-to": [TARGET, "https://bsky.example/me"],
        syndication: ["https://x.example/1"],
      }),
      post(2),
    ];
    const fixture = batchOf(listed, {
      send: async (sending) => {
        if (sending.id === "1") throw new Error("the ledger went away");
        if (sending.id === "2") throw "a plain refusal";
        return { result: sent(sending.url) };
      },
    });
    const results = await resultsOf(fixture.batch);
    const failed = (uid: string, error: string) => ({ uid, name: uid, status: "failed", error });
    assert.deepEqual(results, [
      {
        url: listed[0]?.url,
        status: "failed",
        syndication: ["https://x.example/1"],
        targets: [
          failed(TARGET, "Internal error: the ledger went away"),
          failed("https://bsky.example/me", "Internal error: the ledger went away"),
        ],
      },
      {
        url: listed[1]?.url,
        status: "failed",
        syndication: [],
        targets: [failed(TARGET, "Internal error: a plain refusal")],
      },
    ]);
    assert.deepEqual(
      fixture.logged.filter(([level]) => level === "error"),
      [
        [
          "error",
          "Syndicating a post failed inside the server",
          { post: listed[0]?.url, error: "the ledger went away" },
        ],
        [
          "error",
          "Syndicating a post failed inside the server",
          { post: listed[1]?.url, error: "a plain refusal" },
        ],
      ],
    );
    assert.deepEqual(fixture.statusOf(), ["finished"]);
  });

  it("says how many sends a dead process left it resends and how many it marks unknown, and says nothing when none", async () => {
    const stale = (state: string) => ({ state }) as StaleResolution;
    const left = batchOf([], { stale: [stale("pending"), stale("unknown"), stale("pending")] });
    await resultsOf(left.batch);
    const warned = (logged: typeof left.logged) =>
      logged.filter(([level, message]) => level === "warn" && message.startsWith("Resolved"));
    assert.deepEqual(
      warned(left.logged).map(([, , fields]) => fields),
      [{ resend: 2, unknown: 1 }],
    );
    const none = batchOf([]);
    await resultsOf(none.batch);
    assert.deepEqual(warned(none.logged), []);
  });

  it("reports the changed posts' follow-ups before any send, and sends nothing when asked to stop during them", async () => {
    const followed = { ...sent("https://site.example/followed"), followUp: true as const };
    const asked: boolean[] = [];
    const fixture = batchOf([post(1)], {
      follow: async (report, shouldStop) => {
        report(followed);
        asked.push(shouldStop());
        fixture.batch.stop();
        asked.push(shouldStop());
        return false;
      },
    });
    assert.deepEqual(await resultsOf(fixture.batch), [followed]);
    assert.deepEqual(asked, [false, true]);
    assert.deepEqual(fixture.sentIds(), []);
    assert.deepEqual(fixture.statusOf(), ["abandoned"]);
    assert.deepEqual(
      fixture.logged.filter(([level]) => level === "warn"),
      [["warn", "The syndication run stopped before its end", { runId: "41", reason: "shutdown" }]],
    );
  });

  it("tells of a lost lease, stops before the next post, and says why", async () => {
    const fixture = batchOf([post(1), post(2)], {
      send: async (sending) => {
        fixture.lease.lost = true;
        fixture.lease.onLost?.();
        return { result: sent(sending.url) };
      },
    });
    await resultsOf(fixture.batch);
    assert.deepEqual(fixture.sentIds(), ["1"]);
    assert.deepEqual(
      fixture.events.filter((event) => event.type === "lease-lost"),
      [{ type: "lease-lost", runId: "41" }],
    );
    assert.deepEqual(
      fixture.logged.filter(([level]) => level === "warn"),
      [["warn", "The syndication run stopped before its end", { runId: "41", reason: "lease lost" }]],
    );
  });

  it("ends a run that failed as abandoned, with its error, and logs it", async () => {
    const fixture = batchOf([post(1)], { refuse: "start" });
    await assert.rejects(resultsOf(fixture.batch), /the database refused the start/);
    await assert.rejects(fixture.batch.done, /the database refused the start/);
    assert.deepEqual(fixture.sentIds(), []);
    assert.deepEqual(fixture.statusOf(), ["abandoned"]);
    assert.deepEqual(fixture.finished, [["41", "abandoned"]]);
    assert.deepEqual(fixture.logged, [
      [
        "error",
        "The syndication run stopped on an error",
        { runId: "41", error: "the database refused the start" },
      ],
    ]);
  });

  it("finishes a run whose end could not be recorded or whose lease could not be released, saying so", async () => {
    for (const [refuse, level, message] of [
      ["end", "error", "Could not record the end of the syndication run"],
      ["release", "warn", "Could not release the syndication lease"],
    ] as const) {
      const fixture = batchOf([post(1)], { refuse });
      assert.equal((await resultsOf(fixture.batch)).length, 1);
      assert.deepEqual(fixture.statusOf(), ["finished"]);
      assert.equal(fixture.batch.finished, true);
      assert.deepEqual(fixture.logged, [[level, message, { error: `the database refused the ${refuse}` }]]);
    }
  });
});
