// Waiting on something another process or a background task does: the remote's write-back, a
// feed's read. The state is polled; no assertion depends on how long it took. The timeout is a hang
// guard, not a budget: 20 s fell short in full runs where the test and system parts share 2 cores
// (a scheduled backup, a delete's three copies); passing tests never wait for it.

/** Asks `probe` every 20 ms until it answers something, which it returns; fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 120_000,
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
  timeoutMs = 120_000,
): Promise<void> {
  await eventually(what, async () => ((await condition()) ? true : undefined), timeoutMs);
}
