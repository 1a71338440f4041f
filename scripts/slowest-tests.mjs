#!/usr/bin/env node
// The slowest test files of CI's test parts, from their logs (.ci/run prints them after the parts'
// times, decision 0072): where a part's minutes go, so that the next cut is measured, not guessed.
// scripts/test.mjs runs each grouped file as a top-level suite named by its path, so the runner's
// TAP holds one top-level `ok N - <path>` and its `duration_ms` per file; a file run in a process of
// its own shows its top-level test's name instead.
//
//   node scripts/slowest-tests.mjs [--top N] part=log …   e.g. system=/tmp/possekit-ci-x/system.log
import { readFileSync } from "node:fs";

/** Each top-level test of a TAP text (a test file, in CI's parts) with its seconds. */
export function topLevelDurations(tap) {
  const found = [];
  let open = null;
  for (const line of tap.split("\n")) {
    const result = /^(not ok|ok) \d+ - (.+?)(?: # .*)?$/.exec(line);
    if (result) {
      open = { name: result[2], failed: result[1] === "not ok", seconds: null };
      found.push(open);
      continue;
    }
    const duration = /^ {2}duration_ms: ([\d.]+)$/.exec(line);
    if (duration && open && open.seconds === null) open.seconds = Number(duration[1]) / 1000;
    if (/^\S/.test(line)) open = null;
  }
  return found.filter((test) => test.seconds !== null);
}

/** The `top` slowest of every part's files, slowest first: "  123.4 s  system    test/e2e/…". */
export function slowestLines(logs, top = 15) {
  return logs
    .flatMap(({ part, tap }) => topLevelDurations(tap).map((test) => ({ part, ...test })))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, top)
    .map(
      ({ part, name, seconds, failed }) =>
        `${seconds.toFixed(1).padStart(7)} s  ${part.padEnd(9)} ${name}${failed ? " (failed)" : ""}`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--top");
  const top = at >= 0 ? Number(args.splice(at, 2)[1]) : 15;
  const logs = args.flatMap((arg) => {
    const [part, path] = arg.split("=");
    try {
      return [{ part, tap: readFileSync(path, "utf8") }];
    } catch {
      return [];
    }
  });
  for (const line of slowestLines(logs, top)) console.log(line);
}
