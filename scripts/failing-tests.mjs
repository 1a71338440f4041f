#!/usr/bin/env node
// Every failing test of CI's parts, from their logs: .ci/run prints them last, because the CI service
// keeps only the tail of the output, and a failed part's whole log (printed above them) pushed the
// names of the failing tests out of what was kept.
// A test part's log is the runner's TAP: a failing test is a `not ok` line, named here by its
// file and the suites it is nested in. scripts/test.mjs runs each grouped file as a top-level suite
// named by its path; a file run in a process of its own names its file only in the failure's
// `location`. A suite whose only failure is its subtests' (`failureType: 'subtestsFailed'`) is left
// out: its failing subtests are named themselves. The mutation part names each mutant no test
// killed (SURVIVED) or that no longer applies (INVALID); the stryker part its failed gate.
//
//   node scripts/failing-tests.mjs [--top N] part=log …   e.g. test=/tmp/possekit-ci-x/test.log
import { readFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";

/** The lines that say a non-TAP part failed, by part. */
const FAILED_LINE = {
  mutation: /^(SURVIVED|INVALID) /,
  stryker: /^(Gate: FAILED|Stryker failed)/,
};

const TEST_FILE = /\.test\.[cm]?[jt]sx?$/;

/** A TAP name as the test declared it: the reporter escapes `\` and `#`. */
const declaredName = (name) => name.replace(/\\([\\#])/g, "$1");

/** A path as CI's clone names it: relative to `root` when absolute. */
const fromRoot = (path, root) => (isAbsolute(path) ? relative(root, path) : path);

/**
 * Each failing test of a TAP text, in the order the runner reported them: { file, names, error },
 * names from the outermost suite inside the file to the test, error the runner's message when it
 * fits a line. A file that failed as a whole (it did not load, or its process failed) has no names.
 */
export function failingTests(tap, root = process.cwd()) {
  const found = [];
  const open = [];
  let failed = null;
  const settle = () => {
    const { ancestors, name, failureType, location, error } = failed;
    failed = null;
    if (failureType === "subtestsFailed") return;
    const chain = [...ancestors, name];
    if (TEST_FILE.test(chain[0])) {
      found.push({ file: fromRoot(chain[0], root), names: chain.slice(1), error });
      return;
    }
    const file = location ? fromRoot(location.replace(/(:\d+){2}$/, ""), root) : "(file unknown)";
    found.push({ file, names: chain, error });
  };
  for (const line of tap.split("\n")) {
    const indent = line.length - line.trimStart().length;
    if (failed) {
      const field =
        line.startsWith(failed.pad) &&
        /^(location|failureType|error): '(.*)'$/.exec(line.slice(failed.pad.length));
      if (field) failed[field[1]] = field[2];
      const ended = line === `${failed.pad}...`;
      // A block cut short (the process died mid-report) ends at the next test line.
      if (ended || /^\s*(# Subtest: |(not )?ok \d+ )/.test(line)) settle();
      if (ended) continue;
    }
    const depth = Math.floor(indent / 4);
    const subtest = /^\s*# Subtest: (.*)$/.exec(line);
    if (subtest) {
      open.length = depth;
      open.push(declaredName(subtest[1]));
      continue;
    }
    const result = /^\s*not ok \d+ - (.*?)(?: # (TODO|SKIP)\b.*)?$/.exec(line);
    if (result && !result[2]) {
      // Its YAML block, two spaces deeper than the line: location, failureType.
      failed = {
        ancestors: open.slice(0, depth),
        name: declaredName(result[1]),
        pad: " ".repeat(indent + 2),
      };
    }
  }
  if (failed) settle();
  return found;
}

/** The lines of one part's log that name its failures, as printed: "file: suite > test". */
export function failureLines(part, log, root = process.cwd()) {
  const pattern = FAILED_LINE[part];
  if (pattern) {
    return log
      .split("\n")
      .filter((line) => pattern.test(line))
      .map((line) => line.replace(/\s+/g, " ").trim());
  }
  return failingTests(log, root).map(({ file, names, error }) =>
    names.length > 0
      ? `${file}: ${names.join(" > ")}`
      : `${file} (the file as a whole${error ? `: ${error}` : ""})`,
  );
}

/**
 * What CI prints last: every part's failures, at most `top` in all (each part its turn, so that one
 * part's many failures do not hide another's), then how many more; nothing when none failed.
 */
export function failureReport(logs, top = 40, root = process.cwd()) {
  const byPart = logs
    .map(({ part, log }) => ({ part, lines: failureLines(part, log, root) }))
    .filter(({ lines }) => lines.length > 0);
  const total = byPart.reduce((sum, { lines }) => sum + lines.length, 0);
  if (total === 0) return [];
  const shown = byPart.map(() => 0);
  for (let taken = 0; taken < Math.min(top, total); ) {
    byPart.forEach(({ lines }, i) => {
      if (taken < top && shown[i] < lines.length) {
        shown[i] += 1;
        taken += 1;
      }
    });
  }
  const counts = byPart.map(({ part, lines }) => `${part} ${lines.length}`).join(", ");
  const report = [`Failing tests: ${total} (${counts})`];
  byPart.forEach(({ part, lines }, i) => {
    for (const line of lines.slice(0, shown[i])) report.push(`  ${part.padEnd(9)} ${line}`);
  });
  const rest = byPart
    .map(({ part, lines }, i) => ({ part, left: lines.length - shown[i] }))
    .filter(({ left }) => left > 0);
  if (rest.length > 0) {
    const left = rest.reduce((sum, { left }) => sum + left, 0);
    report.push(
      `  … and ${left} more (${rest.map(({ part, left }) => `${part} ${left}`).join(", ")}): see the parts' logs`,
    );
  }
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--top");
  const top = at >= 0 ? Number(args.splice(at, 2)[1]) : 40;
  const logs = args.flatMap((arg) => {
    const [part, path] = arg.split("=");
    try {
      return [{ part, log: readFileSync(path, "utf8") }];
    } catch {
      return [];
    }
  });
  const report = failureReport(logs, top);
  if (report.length > 0) console.log(`\n${report.join("\n")}`);
}
