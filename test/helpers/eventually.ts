// Waiting on something another process or a background task does: the remote's write-back, a
// feed's read. The state is polled; no assertion depends on how long it took. The timeout is a hang
// guard, not a budget: 20 s fell short in full runs where the test and system parts share 2 cores
// (a scheduled backup, a delete's three copies); passing tests never wait for it. A mutant that stops
// what a test waits for makes it wait the whole guard, so CI's generated-mutant part shortens it
// through POSSEKIT_TEST_HANG_GUARD_MS (decision 0083): the test fails sooner and Stryker's bail ends
// the file, instead of Stryker's own timeout and a restart of its runner.

/** The default hang guard: POSSEKIT_TEST_HANG_GUARD_MS when set, else 120 s. */
export function hangGuardMs(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.POSSEKIT_TEST_HANG_GUARD_MS;
  if (set === undefined || set === "") return 120_000;
  const ms = Number(set);
  if (!Number.isInteger(ms) || ms < 1000)
    throw new Error(
      `POSSEKIT_TEST_HANG_GUARD_MS=${set}: write a whole number of milliseconds, at least 1000 (for example 30000), or leave it unset for 120000`,
    );
  return ms;
}

/** Asks `probe` every 20 ms until it answers something, which it returns; fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = hangGuardMs(),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until `condition` holds, asking every 20 ms; fails after `timeoutMs` saying `what`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = hangGuardMs(),
): Promise<void> {
  await eventually(what, async () => ((await condition()) ? true : undefined), timeoutMs);
}
