// Tokens, sessions, backoffs and webhook signatures all carry times: a clock far off refuses good
// ones and accepts stale ones. Compared with the Date headers of the answers the other checks got.
import type { Check } from "./problem.ts";

/** More than this apart is a clock that is not kept in time (HTTP dates have whole seconds). */
export const CLOCK_SKEW_MS = 60_000;

export const clock: Check = ({ dates, now }) => {
  const here = now();
  const off = dates.find(({ date }) => Math.abs(date - here) > CLOCK_SKEW_MS);
  if (!off) return [];
  const minutes = Math.round(Math.abs(off.date - here) / 60_000);
  return [
    {
      option: "clock",
      problem: `this machine's clock is ${minutes} minute${minutes === 1 ? "" : "s"} ${off.date > here ? "behind" : "ahead of"} ${off.from}`,
      instead: "turn on time synchronisation (timedatectl set-ntp true, or install chrony)",
    },
  ];
};
