// What the set-up helpers of several test folders share: something started before a describe block's
// tests and stopped after them, read by those tests. Called inside the describe block, it registers
// the block's before and after hooks; what it answers reads what was started, and throws when read
// before (by the describe block's own body rather than by a test).
import { after, before } from "node:test";

export function startedForTheBlock<T>(
  name: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
): () => T {
  let started: { value: T } | undefined;
  before(async () => {
    started = { value: await start() };
  });
  after(async () => {
    if (started) await stop(started.value);
  });
  return () => {
    if (!started) throw new Error(`${name} is read by a test of the describe block that called it`);
    return started.value;
  };
}
