// Decision 0030: while PGlite starts, the process often waits on V8 alone (WebAssembly compiled in the
// background, nothing of libuv's pending). Node then finds its event loop empty and, before anything
// else, waits for every task of V8's worker threads to finish: 150–400 ms of a warm start spent
// waiting for the optimising compile of one PostgreSQL function. openPglite holds a timer while
// PGlite starts, so the loop stays alive, and lets go of it once the database is open or has failed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keepingTheLoopAlive } from "../../src/server/database/keeping-the-loop-alive.ts";
import { openPglite } from "../../src/server/database/pglite.ts";

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

/** The most timers the event loop held at any of its turns until `work` settled. */
async function mostTimersWhile(work: Promise<unknown>): Promise<number> {
  let settled = false;
  const watched = work.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let most = timers();
  await new Promise<void>((resolve) => {
    // An immediate is no timer: looking at each turn adds none to what is counted.
    const look = () => {
      most = Math.max(most, timers());
      if (settled) resolve();
      else setImmediate(look);
    };
    setImmediate(look);
  });
  await watched;
  return most;
}

describe("opening the embedded database keeps Node's event loop alive", () => {
  it("holds a timer while PGlite starts, and none once the database is open", async () => {
    const before = timers();
    const opening = openPglite();
    const most = await mostTimersWhile(opening);
    const database = await opening;
    try {
      assert.ok(
        most > before,
        `no timer held the loop while PGlite started (${most} timers, ${before} before)`,
      );
      assert.equal(timers(), before, "a timer was left behind once the database was open");
      const { rows } = await database.query<{ one: number }>("SELECT 1 AS one");
      assert.deepEqual(rows, [{ one: 1 }]);
    } finally {
      await database.close();
    }
  });

  it("lets go of the timer when the work fails, and passes the failure on", async () => {
    const before = timers();
    const failing = keepingTheLoopAlive(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error("the database could not start");
    });
    const most = await mostTimersWhile(failing);
    await assert.rejects(failing, /the database could not start/);
    assert.equal(most, before + 1);
    assert.equal(timers(), before);
  });
});
