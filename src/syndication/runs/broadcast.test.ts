// A run's results handed to whoever listens (the page's event stream, the command's NDJSON): each
// listener gets every value published while it listens, in order, and its loop ends, or throws the
// run's error, only after it has read them. A slip here loses a post's result from the page, or leaves
// a listener waiting for ever after the run ended.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Broadcast } from "./broadcast.ts";

/** Everything an iteration reads until it ends; its error, if it throws. */
async function drain<T>(iterable: AsyncIterable<T>): Promise<{ values: T[]; error?: unknown }> {
  const values: T[] = [];
  try {
    for await (const value of iterable) values.push(value);
    return { values };
  } catch (error) {
    return { values, error };
  }
}

describe("a run's broadcast", () => {
  it("each listener gets the values published from when it started listening, in order", async () => {
    const broadcast = new Broadcast<number>();
    broadcast.publish(0);
    const first = drain(broadcast);
    broadcast.publish(1);
    const second = drain(broadcast);
    broadcast.publish(2);
    broadcast.publish(3);
    assert.equal(broadcast.subscribers, 2);
    broadcast.end();
    assert.deepEqual(await first, { values: [1, 2, 3] });
    assert.deepEqual(await second, { values: [2, 3] });
  });

  it("a listener waiting for the next value gets it when it is published", async () => {
    const broadcast = new Broadcast<string>();
    const iterator = broadcast[Symbol.asyncIterator]();
    const next = iterator.next();
    broadcast.publish("a");
    assert.deepEqual(await next, { value: "a", done: false });
    const after = iterator.next();
    broadcast.publish("b");
    assert.deepEqual(await after, { value: "b", done: false });
  });

  it("the end reaches a waiting listener, and one that has values left only once it read them", async () => {
    const broadcast = new Broadcast<string>();
    const waiting = broadcast[Symbol.asyncIterator]();
    const pending = waiting.next();
    const behind = broadcast[Symbol.asyncIterator]();
    broadcast.publish("a");
    broadcast.end();
    assert.deepEqual(await pending, { value: "a", done: false });
    assert.deepEqual(await waiting.next(), { value: undefined, done: true });
    assert.deepEqual(await behind.next(), { value: "a", done: false });
    assert.deepEqual(await behind.next(), { value: undefined, done: true });
    assert.equal(broadcast.subscribers, 0, "nobody is kept once the run ended");
  });

  it("a run's error is thrown after the values, once, then the iteration is done", async () => {
    const broadcast = new Broadcast<number>();
    const behind = broadcast[Symbol.asyncIterator]();
    const listening = drain(broadcast);
    const failure = new Error("the lease was lost");
    broadcast.publish(1);
    broadcast.end(failure);
    assert.deepEqual(await behind.next(), { value: 1, done: false });
    await assert.rejects(behind.next(), (error) => error === failure);
    assert.deepEqual(await behind.next(), { value: undefined, done: true });
    assert.deepEqual(await listening, { values: [1], error: failure });
  });

  it("the error also reaches a listener already waiting when the run ends", async () => {
    const broadcast = new Broadcast<number>();
    const iterator = broadcast[Symbol.asyncIterator]();
    const pending = iterator.next();
    const failure = new Error("stopped");
    broadcast.end(failure);
    await assert.rejects(pending, (error) => error === failure);
  });

  it("a listener that comes after the end ends at once, with the run's error if it had one", async () => {
    const finished = new Broadcast<number>();
    finished.end();
    finished.publish(1);
    assert.deepEqual(await drain(finished), { values: [] });
    assert.equal(finished.subscribers, 0);
    const failed = new Broadcast<number>();
    const failure = new Error("failed");
    failed.end(failure);
    assert.deepEqual(await drain(failed), { values: [], error: failure });
  });

  it("only the first end counts", async () => {
    const broadcast = new Broadcast<number>();
    const listening = drain(broadcast);
    const first = new Error("first");
    broadcast.end(first);
    broadcast.end(new Error("second"));
    assert.deepEqual(await listening, { values: [], error: first });
    assert.deepEqual(await drain(broadcast), { values: [], error: first });
    const ended = new Broadcast<number>();
    ended.end();
    ended.end(new Error("late"));
    assert.deepEqual(await drain(ended), { values: [] });
  });

  it("breaking out of the loop stops the listening: nothing more is kept for it", async () => {
    const broadcast = new Broadcast<number>();
    const iterator = broadcast[Symbol.asyncIterator]();
    const other = drain(broadcast);
    broadcast.publish(1);
    assert.deepEqual(await iterator.next(), { value: 1, done: false });
    assert.deepEqual(await iterator.return?.(), { value: undefined, done: true });
    assert.equal(broadcast.subscribers, 1);
    broadcast.publish(2);
    assert.deepEqual(await iterator.next(), { value: undefined, done: true });
    broadcast.end();
    assert.deepEqual(await other, { values: [1, 2] });
  });

  it("a long run's values all arrive, in order, however many a listener reads behind", async () => {
    const broadcast = new Broadcast<number>();
    const iterator = broadcast[Symbol.asyncIterator]();
    const read: number[] = [];
    let published = 0;
    // Reading a little behind the run, so that the listener's queue is read and added to by turns.
    for (let round = 0; round < 30; round += 1) {
      for (let n = 0; n < 200; n += 1) broadcast.publish(published++);
      for (let n = 0; n < 150; n += 1)
        read.push(((await iterator.next()) as IteratorYieldResult<number>).value);
    }
    broadcast.end();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) read.push(next.value);
    assert.equal(read.length, published);
    assert.deepEqual(
      read.filter((value, index) => value !== index),
      [],
    );
  });
});
