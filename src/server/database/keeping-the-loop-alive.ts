// While PGlite starts, the process often waits on V8 alone: WebAssembly compiled in the background,
// with no socket, file or timer of libuv's pending. Node then finds its event loop empty, and before
// deciding whether to exit it waits for every task of V8's worker threads to finish (NodePlatform::
// DrainTasks), among them the optimising compile of one of PostgreSQL's large functions. On a warm
// start that was 150-400 ms of a second with nothing to do (decision 0030: the main thread blocked on a
// futex in DrainTasks, seen with gdb). A timer held meanwhile keeps the loop alive, so the loop
// simply waits for V8's message that the compile is done.

/** Runs `work` with Node's event loop held alive until it settles. */
export async function keepingTheLoopAlive<T>(work: () => Promise<T>): Promise<T> {
  // Never fires: a timer only marks the loop as having something left to wait for.
  const hold = setInterval(() => {}, 2 ** 30);
  try {
    return await work();
  } finally {
    clearInterval(hold);
  }
}
