// One call of a syndicator, whatever it does: the outcome the core records from it. The slips that
// cost users most: a timeout not marked uncertain (a target without idempotency gets the post again:
// a second copy), a refusal not read as permanent (retried for ever) or a permanent one lost, a
// Retry-After ignored, and a call that rejects or hangs past its time. The timers are node's mock
// timers: no test waits in real time.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Publication } from "../../contract/syndicator.ts";
import {
  callFollowUp,
  callReplace,
  callSyndicator,
  DEFAULT_TARGET_TIMEOUT_MS,
  failureOf,
  type SyndicatorOutcome,
} from "./call-syndicator.ts";

const NOW = Date.parse("2024-06-01T12:00:00Z");
const publication: Publication = {
  me: "https://example.org/",
  postUrlPattern: "{me}notes/{slug}/",
  timezone: "UTC",
  name: "Example",
};
const properties = { url: "https://example.org/notes/1/", content: "Hello" };
const COPY = "https://copies.example/@me/1";

type Calls = { method: string; options: Record<string, unknown> }[];

/** A syndicator whose methods record their options and do as `answer` says. */
function target(
  answer: (options: Record<string, unknown>) => unknown,
  methods: ("update" | "delete" | "replace")[] = ["update", "delete", "replace"],
): { syndicator: SyndicatorPlugin; calls: Calls } {
  const calls: Calls = [];
  const record =
    (method: string) => (_properties: unknown, _publication: unknown, options: Record<string, unknown>) => {
      calls.push({ method, options });
      return answer(options);
    };
  const syndicator = {
    id: "test",
    name: "Test",
    meta: {},
    info: { uid: "https://copies.example/@me", name: "Copies" },
    init() {},
    syndicate: record("syndicate"),
    ...Object.fromEntries(methods.map((method) => [method, record(method)])),
  } as unknown as SyndicatorPlugin;
  return { syndicator, calls };
}

const send = (syndicator: SyndicatorPlugin, extra: Partial<Parameters<typeof callSyndicator>[3]> = {}) =>
  callSyndicator(syndicator, properties, publication, { idempotencyKey: "key", timeoutMs: 5_000, ...extra });

/** Lets the promises of a call run, with the mock timers standing still. */
const settled = async () => {
  for (let n = 0; n < 10; n += 1) await Promise.resolve();
};

beforeEach(() => mock.timers.enable({ apis: ["setTimeout", "Date"], now: NOW }));
afterEach(() => mock.timers.reset());

describe("a send", () => {
  it("a URL of the copy is a success, the call told only what it has", async () => {
    const { syndicator, calls } = target(async () => COPY);
    assert.deepEqual(await send(syndicator), { ok: true, url: COPY });
    assert.deepEqual(Object.keys(calls[0]?.options ?? {}), ["idempotencyKey", "signal"]);
    assert.equal(calls[0]?.options.idempotencyKey, "key");
    assert.ok(calls[0]?.options.signal instanceof AbortSignal);
  });

  it("what an earlier attempt left, its checkpoint and the post's words are handed on", async () => {
    const { syndicator, calls } = target(async () => "http://copies.example/1");
    const checkpoint = async () => {};
    const site = { text: "Site words", truncate: false };
    const outcome = await send(syndicator, {
      resumeFrom: "half",
      checkpoint,
      words: { text: "My words", site, thread: false },
    });
    assert.deepEqual(outcome, { ok: true, url: "http://copies.example/1" });
    const { signal: _signal, ...options } = calls[0]?.options ?? {};
    assert.deepEqual(options, {
      idempotencyKey: "key",
      resumeFrom: "half",
      checkpoint,
      text: "My words",
      site,
      thread: false,
    });
    await send(syndicator, { words: { site } });
    assert.deepEqual(Object.keys(calls[1]?.options ?? {}), ["idempotencyKey", "signal", "site"]);
    await send(syndicator, { resumeFrom: "", words: { thread: true } });
    assert.deepEqual(Object.keys(calls[2]?.options ?? {}), ["idempotencyKey", "signal", "thread"]);
  });

  it("anything but an http(s) URL is a failure that may be retried, and says what came back", async () => {
    const failure = (what: string) => ({
      ok: false,
      error: `Copies returned ${what} instead of the URL of the copy`,
      permanent: false,
      uncertain: false,
    });
    assert.deepEqual(
      await send(target(async () => "ftp://copies.example/1").syndicator),
      failure('"ftp://copies.example/1"'),
    );
    assert.deepEqual(await send(target(async () => "no url").syndicator), failure('"no url"'));
    // Schemes that only begin or end like http(s).
    assert.deepEqual(
      await send(target(async () => "httpsx://copies.example/1").syndicator),
      failure('"httpsx://copies.example/1"'),
    );
    assert.deepEqual(
      await send(target(async () => "xhttp://copies.example/1").syndicator),
      failure('"xhttp://copies.example/1"'),
    );
    assert.deepEqual(await send(target(async () => "").syndicator), failure("nothing"));
    assert.deepEqual(await send(target(async () => undefined).syndicator), failure("nothing"));
    assert.deepEqual(await send(target(async () => 42).syndicator), failure("nothing"));
    const long = "x".repeat(300);
    assert.deepEqual(await send(target(async () => long).syndicator), failure(`"${"x".repeat(200)}"`));
  });

  it("a target that hangs: uncertain after its time limit, and its signal aborted with the reason", async () => {
    const { syndicator, calls } = target(() => new Promise(() => {}));
    let outcome: SyndicatorOutcome | undefined;
    void send(syndicator, { timeoutMs: 1_500 }).then((value) => {
      outcome = value;
    });
    await settled();
    mock.timers.tick(1_499);
    await settled();
    assert.equal(outcome, undefined, "not before its time");
    const signal = calls[0]?.options.signal as AbortSignal;
    assert.equal(signal.aborted, false);
    mock.timers.tick(1);
    await settled();
    const message = "Copies did not answer within 1.5 s";
    assert.deepEqual(outcome, { ok: false, error: message, permanent: false, uncertain: true });
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as Error).message, message);
  });

  it("a target that rejects at once when aborted still ends as a timeout: uncertain", async () => {
    const { syndicator } = target(
      (options) =>
        new Promise((_resolve, reject) => {
          (options.signal as AbortSignal).addEventListener("abort", () =>
            reject(Object.assign(new Error("aborted"), { permanent: true })),
          );
        }),
    );
    const outcome = send(syndicator, { timeoutMs: 1 });
    await settled();
    mock.timers.tick(1);
    assert.deepEqual(await outcome, {
      ok: false,
      error: "Copies did not answer within 0.001 s",
      permanent: false,
      uncertain: true,
    });
  });

  it("a send that answered in time is never aborted afterwards", async () => {
    const { syndicator, calls } = target(async () => COPY);
    assert.equal((await send(syndicator, { timeoutMs: 1_000 })).ok, true);
    mock.timers.tick(5_000);
    const signal = calls[0]?.options.signal as AbortSignal;
    assert.equal(signal.aborted, false);
  });

  it("a throw, even a synchronous one, is an outcome, never a rejection", async () => {
    const { syndicator } = target(() => {
      throw new Error("Copies: 500");
    });
    assert.deepEqual(await send(syndicator), {
      ok: false,
      error: "Copies: 500",
      permanent: false,
      uncertain: false,
    });
  });

  it("waits 30 s by default", () => {
    assert.equal(DEFAULT_TARGET_TIMEOUT_MS, 30_000);
  });
});

describe("what a syndicator's error says", () => {
  it("a refusal's status, permanence, uncertainty and Retry-After, read structurally", () => {
    const error = Object.assign(new Error("Copies: 429 slow down"), {
      status: 429,
      permanent: true,
      uncertain: true,
      retryAfterSeconds: 90,
    });
    assert.deepEqual(failureOf(error), {
      error: "Copies: 429 slow down",
      permanent: true,
      uncertain: true,
      status: 429,
      retryAt: new Date(NOW + 90_000),
    });
    assert.deepEqual(failureOf({ message: "plain object", permanent: true, status: 401 }), {
      error: "The syndicator failed without saying why",
      permanent: true,
      uncertain: false,
      status: 401,
    });
  });

  it("only `true` makes a failure permanent or uncertain, and only a number is a status", () => {
    assert.deepEqual(
      failureOf(Object.assign(new Error("e"), { permanent: "yes", uncertain: 1, status: "401" })),
      {
        error: "e",
        permanent: false,
        uncertain: false,
      },
    );
  });

  it("a Retry-After that is not a finite, non-negative number of seconds is none", () => {
    const retryAt = (retryAfterSeconds: unknown) =>
      failureOf(Object.assign(new Error("e"), { retryAfterSeconds })).retryAt;
    assert.deepEqual(retryAt(0), new Date(NOW));
    assert.deepEqual(retryAt(1.5), new Date(NOW + 1_500));
    for (const value of [-1, Number.POSITIVE_INFINITY, Number.NaN, "90", null, undefined])
      assert.equal(retryAt(value), undefined, String(value));
  });

  it("says what went wrong: the message, else the error's name, a thrown text, or that it did not say", () => {
    const named = new Error("");
    named.name = "TimeoutError";
    assert.equal(failureOf(named).error, "TimeoutError");
    assert.equal(failureOf("Copies refused").error, "Copies refused");
    for (const thrown of ["", null, undefined, 42])
      assert.equal(failureOf(thrown).error, "The syndicator failed without saying why");
  });
});

describe("a copy's follow-up", () => {
  const copy = { url: COPY, idempotencyKey: "follow-key", timeoutMs: 5_000 };

  it("an update is told the copy, its thread, the sent key and photos, and the post's words; its URL is the copy's", async () => {
    const { syndicator, calls } = target(async () => undefined);
    const saveThread = async () => {};
    const thread = [{ id: "1", url: COPY }];
    const outcome = await callFollowUp(syndicator, "update", properties, publication, {
      ...copy,
      words: { text: "My words" },
      sentPhotos: [],
      thread,
      sentKey: "sent-key",
      saveThread,
    });
    assert.deepEqual(outcome, { ok: true, url: COPY });
    assert.equal(calls[0]?.method, "update");
    const { signal, ...options } = calls[0]?.options ?? {};
    assert.ok(signal instanceof AbortSignal);
    assert.deepEqual(options, {
      url: COPY,
      idempotencyKey: "follow-key",
      threadPosts: thread,
      sentKey: "sent-key",
      saveThread,
      text: "My words",
      sentPhotos: [],
    });
    await callFollowUp(syndicator, "update", properties, publication, copy);
    assert.deepEqual(Object.keys(calls[1]?.options ?? {}), ["url", "idempotencyKey", "signal"]);
  });

  it("a delete is told the copy and its thread, never the post's words", async () => {
    const { syndicator, calls } = target(async () => undefined);
    const thread = [{ id: "1", url: COPY }];
    const outcome = await callFollowUp(syndicator, "delete", properties, publication, {
      ...copy,
      words: { text: "My words" },
      sentPhotos: [],
      thread,
    });
    assert.deepEqual(outcome, { ok: true, url: COPY });
    assert.equal(calls[0]?.method, "delete");
    assert.deepEqual(Object.keys(calls[0]?.options ?? {}), [
      "url",
      "idempotencyKey",
      "signal",
      "threadPosts",
    ]);
  });

  it("a target that cannot edit or delete its copies says so, as a failure that may be retried", async () => {
    const { syndicator, calls } = target(async () => undefined, []);
    assert.deepEqual(await callFollowUp(syndicator, "update", properties, publication, copy), {
      ok: false,
      error: "Copies cannot edit its copies",
      permanent: false,
      uncertain: false,
    });
    assert.deepEqual(await callFollowUp(syndicator, "delete", properties, publication, copy), {
      ok: false,
      error: "Copies cannot delete its copies",
      permanent: false,
      uncertain: false,
    });
    assert.deepEqual(calls, []);
  });

  it("a delete that hangs is uncertain after its time limit", async () => {
    const { syndicator } = target(() => new Promise(() => {}));
    const outcome = callFollowUp(syndicator, "delete", properties, publication, {
      ...copy,
      timeoutMs: 2_000,
    });
    await settled();
    mock.timers.tick(2_000);
    assert.deepEqual(await outcome, {
      ok: false,
      error: "Copies did not answer within 2 s",
      permanent: false,
      uncertain: true,
    });
  });
});

describe("a copy replaced", () => {
  const saveThread = async () => {};
  const copy = { url: COPY, idempotencyKey: "replace-key", timeoutMs: 5_000, saveThread };

  it("is told the old copy, its thread and the post's words; the new copy's URL is the outcome's", async () => {
    const { syndicator, calls } = target(async () => "https://copies.example/@me/2");
    const thread = [{ id: "1", url: COPY }];
    const outcome = await callReplace(syndicator, properties, publication, {
      ...copy,
      thread,
      words: { text: "My words" },
    });
    assert.deepEqual(outcome, { ok: true, url: "https://copies.example/@me/2" });
    const { signal, ...options } = calls[0]?.options ?? {};
    assert.ok(signal instanceof AbortSignal);
    assert.deepEqual(options, {
      url: COPY,
      idempotencyKey: "replace-key",
      threadPosts: thread,
      text: "My words",
      saveThread,
    });
    await callReplace(syndicator, properties, publication, copy);
    assert.deepEqual(Object.keys(calls[1]?.options ?? {}), ["url", "idempotencyKey", "signal", "saveThread"]);
  });

  it("no URL back: uncertain, since the old copy may be gone and a new one made", async () => {
    assert.deepEqual(
      await callReplace(target(async () => "no url").syndicator, properties, publication, copy),
      {
        ok: false,
        error: "Copies returned no URL for the new copy",
        permanent: false,
        uncertain: true,
      },
    );
  });

  it("a target that cannot replace its copies says so", async () => {
    const { syndicator } = target(async () => COPY, []);
    assert.deepEqual(await callReplace(syndicator, properties, publication, copy), {
      ok: false,
      error: "Copies cannot replace its copies",
      permanent: false,
      uncertain: false,
    });
  });
});
