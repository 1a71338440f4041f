// The lease's real timer, on node's mock timers: it ticks every period until stopped, and its stop
// really stops it (a renewal left ticking after release would log the lease as taken over).
import assert from "node:assert/strict";
import { afterEach, beforeEach, it, mock } from "node:test";
import { everyRealPeriod } from "./lease.ts";

beforeEach(() => mock.timers.enable({ apis: ["setInterval"] }));
afterEach(() => mock.timers.reset());

it("ticks once each period until stopped, then never again", () => {
  let ticks = 0;
  const stop = everyRealPeriod(1_000, () => {
    ticks += 1;
  });
  mock.timers.tick(999);
  assert.equal(ticks, 0);
  mock.timers.tick(1);
  assert.equal(ticks, 1);
  mock.timers.tick(2_000);
  assert.equal(ticks, 3);
  stop();
  mock.timers.tick(5_000);
  assert.equal(ticks, 3);
});
