// What a scheduled run may send of a post, with the ledger and the live checks as fakes: a post is
// held back until afterPublishMs has passed and, with whenLive, until its page answered 2xx; a post
// sent before (ledger rows) or not published is never held back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Post } from "../../contract/posts.ts";
import type { Ledger } from "../ledger/ledger.ts";
import type { LedgerEntry } from "../types.ts";
import type { LiveAnswer, LiveCheck, LiveChecks } from "./live-checks.ts";
import { type GateDependencies, holdBack, NEEDS_REQUEST } from "./schedule-gate.ts";

const PUBLISHED = Date.parse("2026-11-29T10:00:00.000Z");
const URL = "https://example.org/notes/1/";

function post(fields: Partial<Post> = {}): Post {
  return {
    id: "7",
    url: URL,
    properties: {
      "mp-syndicate-to": ["https://social.example/@me", "https://bsky.example/me"],
      syndication: ["https://elsewhere.example/copy/1"],
    },
    status: "published",
    published: new Date(PUBLISHED),
    created: new Date(PUBLISHED),
    updated: new Date(PUBLISHED),
    deleted: false,
    ...fields,
  };
}

function check(fields: Partial<LiveCheck> = {}): LiveCheck {
  return {
    postId: "7",
    url: URL,
    liveAt: null,
    firstCheckedAt: new Date(PUBLISHED),
    checkedAt: new Date(PUBLISHED),
    nextCheckAt: null,
    checks: 1,
    lastStatus: null,
    lastError: null,
    gaveUp: false,
    ...fields,
  };
}

interface Fakes {
  entries?: LedgerEntry[];
  known?: LiveCheck | null;
  recorded?: LiveCheck;
  answer?: LiveAnswer;
  whenLive?: boolean;
  afterPublishMs?: number;
  now?: number;
}

/** The gate's dependencies, and what the gate asked of them. */
function gate(fakes: Fakes = {}) {
  const asked = {
    ledger: 0,
    get: 0,
    checked: [] as string[],
    recorded: [] as [string, string, LiveAnswer][],
  };
  const ledger = {
    async entriesForPost(postId: string) {
      assert.equal(postId, "7");
      asked.ledger += 1;
      return fakes.entries ?? [];
    },
  } as Pick<Ledger, "entriesForPost"> as Ledger;
  const liveChecks = {
    async get(postId: string) {
      assert.equal(postId, "7");
      asked.get += 1;
      return fakes.known ?? null;
    },
    async record(postId: string, url: string, answer: LiveAnswer) {
      asked.recorded.push([postId, url, answer]);
      return fakes.recorded ?? check();
    },
  } as Pick<LiveChecks, "get" | "record"> as LiveChecks;
  const deps: GateDependencies = {
    ledger,
    liveChecks,
    async checkLive(url) {
      asked.checked.push(url);
      return fakes.answer ?? { live: false, status: 404, error: "404 Not Found" };
    },
    rules: { whenLive: fakes.whenLive ?? true, afterPublishMs: fakes.afterPublishMs ?? 0 },
    nameOf: (uid) => `Name of ${uid}`,
    now: () => fakes.now ?? PUBLISHED + 60_000,
  };
  return { deps, asked };
}

/** The result a held-back post gets: every requested target skipped with the same note. */
function waitingFor(note: string) {
  return {
    url: URL,
    status: "unchanged",
    syndication: ["https://elsewhere.example/copy/1"],
    targets: [
      {
        uid: "https://social.example/@me",
        name: "Name of https://social.example/@me",
        status: "skipped",
        error: note,
      },
      {
        uid: "https://bsky.example/me",
        name: "Name of https://bsky.example/me",
        status: "skipped",
        error: note,
      },
    ],
  };
}

const ENTRY = { postId: "7", targetUid: "https://social.example/@me" } as LedgerEntry;

describe("the schedule gate", () => {
  it("never holds back a post that is not published, nor reads anything for it", async () => {
    const { deps, asked } = gate({ afterPublishMs: 3_600_000 });
    assert.equal(await holdBack(deps, post({ status: "draft" })), null);
    assert.deepEqual(asked, { ledger: 0, get: 0, checked: [], recorded: [] });
  });

  it("never holds back a post that has ledger rows: it was sent before", async () => {
    const fromLedger = gate({ afterPublishMs: 3_600_000, entries: [ENTRY] });
    assert.equal(await holdBack(fromLedger.deps, post()), null);
    assert.equal(fromLedger.asked.ledger, 1);
    const known = gate({ afterPublishMs: 3_600_000 });
    assert.equal(await holdBack(known.deps, post(), [ENTRY]), null);
    assert.equal(known.asked.ledger, 0);
  });

  it("uses the ledger rows read with the post instead of reading them again", async () => {
    const { deps, asked } = gate({ afterPublishMs: 3_600_000, entries: [ENTRY] });
    const result = await holdBack(deps, post(), []);
    assert.equal(asked.ledger, 0);
    assert.deepEqual(result, waitingFor("Sent automatically from 2026-11-29T11:00:00.000Z"));
  });

  it("holds a new post back until afterPublishMs after publishing, and not a millisecond longer", async () => {
    const early = gate({ afterPublishMs: 3_600_000, now: PUBLISHED + 3_600_000 - 1 });
    assert.deepEqual(
      await holdBack(early.deps, post()),
      waitingFor("Sent automatically from 2026-11-29T11:00:00.000Z"),
    );
    assert.equal(early.asked.get, 0);
    const due = gate({ afterPublishMs: 3_600_000, now: PUBLISHED + 3_600_000, whenLive: false });
    assert.equal(await holdBack(due.deps, post()), null);
  });

  it("sends a due post at once when whenLive is off, without checking its page", async () => {
    const { deps, asked } = gate({ whenLive: false });
    assert.equal(await holdBack(deps, post()), null);
    assert.deepEqual(asked, { ledger: 1, get: 0, checked: [], recorded: [] });
  });

  it("sends a post whose page was seen live, without checking it again", async () => {
    const { deps, asked } = gate({ known: check({ liveAt: new Date(PUBLISHED) }) });
    assert.equal(await holdBack(deps, post()), null);
    assert.deepEqual(asked.checked, []);
  });

  it("leaves a post whose page never went live to the user", async () => {
    const withError = gate({ known: check({ gaveUp: true, lastError: "404 Not Found" }) });
    assert.deepEqual(
      await holdBack(withError.deps, post()),
      waitingFor(
        `${URL} was not live after 24 hours (last answer: 404 Not Found); send it from the syndication page`,
      ),
    );
    assert.deepEqual(withError.asked.checked, []);
    const silent = gate({ known: check({ gaveUp: true }) });
    assert.deepEqual(
      await holdBack(silent.deps, post()),
      waitingFor(`${URL} was not live after 24 hours; send it from the syndication page`),
    );
  });

  it("waits for the next check's time without checking before it", async () => {
    const now = PUBLISHED + 60_000;
    const { deps, asked } = gate({
      now,
      known: check({ nextCheckAt: new Date(now + 1), lastError: "503 Service Unavailable" }),
    });
    assert.deepEqual(
      await holdBack(deps, post()),
      waitingFor(`Waiting for ${URL} to be live (last answer: 503 Service Unavailable)`),
    );
    assert.deepEqual(asked.checked, []);
    assert.deepEqual(asked.recorded, []);
  });

  it("checks the page once its next check is due, records the answer, and sends when it is live", async () => {
    const now = PUBLISHED + 60_000;
    const { deps, asked } = gate({
      now,
      known: check({ nextCheckAt: new Date(now) }),
      answer: { live: true, status: 200 },
      recorded: check({ liveAt: new Date(now) }),
    });
    assert.equal(await holdBack(deps, post()), null);
    assert.deepEqual(asked.checked, [URL]);
    assert.deepEqual(asked.recorded, [["7", URL, { live: true, status: 200 }]]);
  });

  it("checks a page never checked, and waits while it does not answer 2xx", async () => {
    const { deps, asked } = gate({ recorded: check({ lastError: "404 Not Found" }) });
    assert.deepEqual(
      await holdBack(deps, post()),
      waitingFor(`Waiting for ${URL} to be live (last answer: 404 Not Found)`),
    );
    assert.deepEqual(asked.recorded, [["7", URL, { live: false, status: 404, error: "404 Not Found" }]]);
    const quiet = gate({ recorded: check() });
    assert.deepEqual(await holdBack(quiet.deps, post()), waitingFor(`Waiting for ${URL} to be live`));
  });

  it("gives up when the check just recorded was the last one", async () => {
    const { deps } = gate({ recorded: check({ gaveUp: true, lastError: "timed out" }) });
    assert.deepEqual(
      await holdBack(deps, post()),
      waitingFor(
        `${URL} was not live after 24 hours (last answer: timed out); send it from the syndication page`,
      ),
    );
  });

  // A batch preparing its next post (decision 0075) may not make a request: the post then waits for its turn.
  it("without leave to make a request, answers that one is needed where it would check the page, and checks nothing", async () => {
    const now = PUBLISHED + 60_000;
    for (const known of [null, check({ nextCheckAt: new Date(now) })]) {
      const { deps, asked } = gate({ now, known, answer: { live: true, status: 200 } });
      assert.equal(await holdBack(deps, post(), [], false), NEEDS_REQUEST);
      assert.deepEqual(asked.checked, []);
      assert.deepEqual(asked.recorded, []);
    }
  });

  it("without leave to make a request, still answers what needs none", async () => {
    const live = gate({ known: check({ liveAt: new Date(PUBLISHED) }) });
    assert.equal(await holdBack(live.deps, post(), [], false), null);
    const early = gate({ afterPublishMs: 3_600_000 });
    assert.deepEqual(
      await holdBack(early.deps, post(), [], false),
      waitingFor("Sent automatically from 2026-11-29T11:00:00.000Z"),
    );
    const notLive = gate({ known: check({ gaveUp: true, lastError: "timed out" }) });
    assert.deepEqual(
      await holdBack(notLive.deps, post(), [], false),
      waitingFor(
        `${URL} was not live after 24 hours (last answer: timed out); send it from the syndication page`,
      ),
    );
    assert.deepEqual(
      [live, early, notLive].flatMap((each) => each.asked.checked),
      [],
    );
  });

  it("names no target when the post requested none", async () => {
    const { deps } = gate({ afterPublishMs: 3_600_000 });
    const bare = post({ properties: {} });
    assert.deepEqual(await holdBack(deps, bare), {
      url: URL,
      status: "unchanged",
      syndication: [],
      targets: [],
    });
  });
});
