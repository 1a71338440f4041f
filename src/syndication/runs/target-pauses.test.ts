// The pause rules of decision 0048 without a database: when a refused target is next checked, what
// the target health says of a target now, which failure starts a pause, and how a run's pauses end.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { Backoff } from "../ledger/claims.ts";
import type { TargetHealth } from "./target-health.ts";
import { lastingPause, nextCheckAt, type TargetPause, TargetPauses } from "./target-pauses.ts";

const MINUTE = 60_000;
const T0 = Date.parse("2026-11-29T10:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * MINUTE);
const BACKOFF: Backoff = { baseMs: MINUTE, maxMs: 10 * MINUTE };

function health(fields: Partial<TargetHealth> = {}): TargetHealth {
  return {
    uid: "https://social.example/@me",
    checkedAt: null,
    okAt: null,
    error: null,
    errorStatus: null,
    errorAt: null,
    refusedSince: null,
    rateLimitedUntil: null,
    ...fields,
  };
}

function syndicator(
  uid: string,
  { verify = true, credentialSetting }: { verify?: boolean; credentialSetting?: string } = {},
): SyndicatorPlugin {
  return {
    id: "test",
    name: "Test",
    meta: {},
    init() {},
    info: { uid, name: `Name of ${uid}` },
    async syndicate() {
      return `${uid}/copy`;
    },
    ...(verify ? { async verify() {} } : {}),
    ...(credentialSetting ? { credentialSetting } : {}),
  };
}

describe("nextCheckAt", () => {
  it("is null for a target that is not refused", () => {
    assert.equal(nextCheckAt(health({ errorAt: at(0), error: "down" }), BACKOFF), null);
  });

  it("is the backoff's base after the refusal when nothing happened since", () => {
    assert.deepEqual(nextCheckAt(health({ refusedSince: at(0) }), BACKOFF), at(1));
  });

  it("waits as long again as the target has been refused, after its last check", () => {
    assert.deepEqual(nextCheckAt(health({ refusedSince: at(0), checkedAt: at(3) }), BACKOFF), at(6));
  });

  it("counts from the last error when it is later than the last check", () => {
    assert.deepEqual(
      nextCheckAt(health({ refusedSince: at(0), checkedAt: at(2), errorAt: at(4) }), BACKOFF),
      at(8),
    );
    assert.deepEqual(
      nextCheckAt(health({ refusedSince: at(0), checkedAt: at(4), errorAt: at(2) }), BACKOFF),
      at(8),
    );
  });

  it("never counts from before the refusal (an older check or error)", () => {
    assert.deepEqual(
      nextCheckAt(health({ refusedSince: at(10), checkedAt: at(2), errorAt: at(3) }), BACKOFF),
      at(11),
    );
  });

  it("waits the base at least and the maximum at most", () => {
    assert.deepEqual(nextCheckAt(health({ refusedSince: at(0), checkedAt: at(0.5) }), BACKOFF), at(1.5));
    assert.deepEqual(nextCheckAt(health({ refusedSince: at(0), checkedAt: at(30) }), BACKOFF), at(40));
  });
});

describe("lastingPause", () => {
  const now = T0 + 2 * MINUTE;

  it("is none without target health, or with health that is neither refused nor rate limited", () => {
    assert.equal(lastingPause(syndicator("a"), undefined, BACKOFF, now), undefined);
    assert.equal(
      lastingPause(syndicator("a"), health({ error: "timed out", errorAt: at(1) }), BACKOFF, now),
      undefined,
    );
  });

  it("pauses a refused target until a check succeeds, naming the error, the setting and the next check", () => {
    const pause = lastingPause(
      syndicator("a", { credentialSetting: "MASTODON_TOKEN" }),
      health({ refusedSince: at(0), error: "401 Unauthorized", checkedAt: at(1) }),
      BACKOFF,
      now,
    );
    assert.deepEqual(pause, {
      kind: "refused",
      reason:
        "Paused: Name of a refused the credentials (401 Unauthorized), until a check succeeds (fix MASTODON_TOKEN, " +
        "then Check now on the syndication page; next automatic check at 2026-11-29T10:02:00.000Z)",
      checkAt: at(2),
    });
  });

  it("says 'its credentials' when the target names no setting, and no error when none was kept", () => {
    const pause = lastingPause(syndicator("a"), health({ refusedSince: at(1) }), BACKOFF, now);
    assert.deepEqual(pause, {
      kind: "refused",
      reason:
        "Paused: Name of a refused the credentials, until a check succeeds (fix its credentials, " +
        "then Check now on the syndication page; next automatic check at 2026-11-29T10:02:00.000Z)",
      checkAt: at(2),
    });
  });

  it("keeps a target that can be checked paused even when its check is due or the user retries", () => {
    const refused = health({ refusedSince: at(0) });
    assert.equal(lastingPause(syndicator("a"), refused, BACKOFF, T0 + 5 * MINUTE)?.kind, "refused");
    assert.equal(lastingPause(syndicator("a"), refused, BACKOFF, now, true)?.kind, "refused");
  });

  it("lets one send through as the check of a target without verify(): when due, or on a user's retry", () => {
    const plain = syndicator("a", { verify: false });
    const refused = health({ refusedSince: at(0) });
    const before = lastingPause(plain, refused, BACKOFF, T0 + MINUTE - 1);
    assert.equal(before?.kind, "refused");
    assert.deepEqual(before?.checkAt, at(1));
    assert.equal(lastingPause(plain, refused, BACKOFF, T0 + MINUTE), undefined);
    assert.equal(lastingPause(plain, refused, BACKOFF, T0 + MINUTE - 1, true), undefined);
  });

  it("pauses a rate-limited target until the reset the service named", () => {
    const pause = lastingPause(
      syndicator("a"),
      health({ rateLimitedUntil: at(30), error: "429 Too Many Requests" }),
      BACKOFF,
      now,
    );
    assert.deepEqual(pause, {
      kind: "rate_limited",
      reason: "Paused: Name of a is rate limited (429 Too Many Requests), until 2026-11-29T10:30:00.000Z",
      until: at(30),
    });
    assert.equal(
      lastingPause(syndicator("a"), health({ rateLimitedUntil: at(30) }), BACKOFF, now)?.reason,
      "Paused: Name of a is rate limited, until 2026-11-29T10:30:00.000Z",
    );
  });

  it("counts a refusal before a rate limit", () => {
    const both = health({ refusedSince: at(0), rateLimitedUntil: at(30) });
    assert.equal(lastingPause(syndicator("a"), both, BACKOFF, now)?.kind, "refused");
  });
});

describe("TargetPauses.after", () => {
  it("starts no pause for a failure without a status or with one that says nothing of the credentials", () => {
    assert.equal(TargetPauses.after({ error: "timed out" }, "Mastodon"), undefined);
    for (const status of [400, 404, 422, 500, 503])
      assert.equal(TargetPauses.after({ status, error: "no" }, "Mastodon"), undefined, `${status}`);
  });

  it("starts a refusal for a 401 or a 403, naming where the credentials are set", () => {
    for (const status of [401, 403]) {
      assert.deepEqual(TargetPauses.after({ status, error: "bad token" }, "Mastodon", "MASTODON_TOKEN"), {
        kind: "refused",
        reason:
          "Paused: Mastodon refused the credentials (bad token), until a check succeeds " +
          "(fix MASTODON_TOKEN, then Check now on the syndication page)",
      });
    }
  });

  it("starts a rate limit for a 429, until the retry time when the service gave one", () => {
    assert.deepEqual(TargetPauses.after({ status: 429, error: "slow down", retryAt: at(5) }, "Bluesky"), {
      kind: "rate_limited",
      reason: "Paused: Bluesky is rate limited (slow down), until 2026-11-29T10:05:00.000Z",
      until: at(5),
    });
    const open = TargetPauses.after({ status: 429, error: "" }, "Bluesky");
    assert.deepEqual(open, {
      kind: "rate_limited",
      reason: "Paused: Bluesky is rate limited, until its reset",
    });
    assert.equal(open !== undefined && "until" in open, false);
  });
});

describe("TargetPauses", () => {
  const refused: TargetPause = { kind: "refused", reason: "refused", checkAt: at(10) };
  const limited: TargetPause = { kind: "rate_limited", reason: "limited", until: at(5) };

  it("keeps the first pause of a target in a run", () => {
    const pauses = new TargetPauses(() => T0);
    pauses.pause("a", refused);
    pauses.pause("a", limited);
    assert.equal(pauses.get("a"), refused);
  });

  it("has no pause for a target never paused", () => {
    const pauses = new TargetPauses(() => T0);
    assert.equal(pauses.get("a"), undefined);
    assert.deepEqual(pauses.uids(), []);
  });

  it("takes a pause during the run for a target that had none when the run started", () => {
    const well = syndicator("well");
    const pauses = TargetPauses.lasting(
      [well],
      new Map([["well", health({ okAt: at(0) })]]),
      BACKOFF,
      () => T0,
    );
    assert.equal(pauses.get("well"), undefined);
    pauses.pause("well", refused);
    assert.equal(pauses.get("well"), refused);
  });

  it("drops a pause once its end has come, and then takes a new one", () => {
    let now = T0;
    const pauses = new TargetPauses(() => now);
    pauses.pause("a", limited);
    now = T0 + 5 * MINUTE - 1;
    assert.equal(pauses.get("a"), limited);
    now = T0 + 5 * MINUTE;
    assert.equal(pauses.get("a"), undefined);
    pauses.pause("a", refused);
    assert.equal(pauses.get("a"), refused);
  });

  it("answers for the moment asked, else for its clock's", () => {
    const pauses = new TargetPauses(() => T0);
    pauses.pause("a", limited);
    assert.equal(pauses.get("a", T0 + 6 * MINUTE), undefined);
    const real = new TargetPauses();
    real.pause("past", { kind: "rate_limited", reason: "", until: new Date(Date.now() - 1000) });
    real.pause("future", { kind: "rate_limited", reason: "", until: new Date(Date.now() + 3_600_000) });
    assert.deepEqual(real.uids(), ["future"]);
  });

  it("lists the pauses in force, and when each ends or is checked, after now", () => {
    let now = T0;
    const pauses = new TargetPauses(() => now);
    pauses.pause("a", refused);
    pauses.pause("b", limited);
    pauses.pause("c", { kind: "refused", reason: "no check" });
    pauses.pause("d", { kind: "refused", reason: "checked at now", checkAt: at(0) });
    assert.deepEqual(pauses.uids(), ["a", "b", "c", "d"]);
    assert.deepEqual(pauses.ends(), [at(10), at(5)]);
    // Asked after b's end, b is gone for good.
    assert.deepEqual(pauses.entries(T0 + 6 * MINUTE), [
      ["a", refused],
      ["c", { kind: "refused", reason: "no check" }],
      ["d", { kind: "refused", reason: "checked at now", checkAt: at(0) }],
    ]);
    assert.deepEqual(pauses.uids(), ["a", "c", "d"]);
    now = T0 + 6 * MINUTE;
    assert.deepEqual(pauses.ends(), [at(10)]);
    assert.deepEqual(pauses.uids(), ["a", "c", "d"]);
  });

  it("starts from the target health of each syndicator, passing the user's retry on", () => {
    const plain = syndicator("plain", { verify: false });
    const checked = syndicator("checked");
    const limitedOne = syndicator("limited");
    const well = syndicator("well");
    const healthByUid = new Map([
      ["plain", health({ uid: "plain", refusedSince: at(0) })],
      ["checked", health({ uid: "checked", refusedSince: at(0) })],
      ["limited", health({ uid: "limited", rateLimitedUntil: at(30) })],
      ["well", health({ uid: "well", okAt: at(0) })],
    ]);
    const targets = [plain, checked, limitedOne, well];
    const clock = () => T0 + 30 * 1000;
    assert.deepEqual(TargetPauses.lasting(targets, healthByUid, BACKOFF, clock).uids(), [
      "plain",
      "checked",
      "limited",
    ]);
    assert.deepEqual(TargetPauses.lasting(targets, healthByUid, BACKOFF, clock, true).uids(), [
      "checked",
      "limited",
    ]);
    assert.equal(
      TargetPauses.lasting(targets, healthByUid, BACKOFF, clock).get("limited", T0)?.kind,
      "rate_limited",
    );
    const byRealClock = TargetPauses.lasting(
      [limitedOne],
      new Map([["limited", health({ rateLimitedUntil: new Date(Date.now() + 3_600_000) })]]),
      BACKOFF,
    );
    assert.deepEqual(byRealClock.uids(), ["limited"]);
  });
});
