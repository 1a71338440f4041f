// What the generated-mutant run mutates and how its result is judged (decision 0069): the changed
// lines of a change, the mutants StrykerJS makes there, a seeded sample of them when there are more
// than a run may take, and each folder's score against its threshold, which CI's part gates on
// (decision 0071). scripts/stryker-changed.mjs
// runs it; test/ci/stryker-plan.test.ts tests each rule.
import { readFileSync } from "node:fs";

/** The folder of FOLDERS (stryker.config.mjs) a file belongs to: the longest that holds it. */
export function folderOf(file, folders) {
  return Object.keys(folders)
    .filter((folder) => file.startsWith(`${folder}/`))
    .sort((a, b) => b.length - a.length)[0];
}

/** A source file Stryker may mutate: TypeScript of a mutated folder, not a test or declaration. */
export function isMutable(file, folders) {
  return (
    file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".d.ts") && !!folderOf(file, folders)
  );
}

/**
 * The lines each file has now that the change added or edited, from `git diff -U0` (new side):
 * a map of file → [[first, last], …], 1-based and inclusive. A file whose lines were only removed
 * has none (nothing left there to mutate); a deleted file is left out.
 */
export function changedLineRanges(diff) {
  const ranges = new Map();
  let file = null;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) {
      const path = line.slice(4);
      file = path === "/dev/null" ? null : path.replace(/^b\//, "");
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk && file) {
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      if (count === 0) continue;
      ranges.set(file, [...(ranges.get(file) ?? []), [start, start + count - 1]]);
    }
  }
  return ranges;
}

/** Stryker's `mutate` entries for line ranges: `file:first-last` (a file with no range: the file). */
export function mutateEntries(rangesByFile) {
  return [...rangesByFile].flatMap(([file, ranges]) =>
    ranges === "all" ? [file] : ranges.map(([first, last]) => `${file}:${first}-${last}`),
  );
}

const quietLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  trace() {},
  fatal() {},
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
};

/**
 * The mutants Stryker's own instrumenter makes in these files' ranges ("all" for a whole file; a
 * range is [first, last] lines, or a place { line, column, endLine, endColumn }), as
 * Stryker run on the same `mutate` entries would make them (those a `// Stryker disable` comment
 * ignores are left out): [{ file, line, column, endLine, endColumn, mutator, replacement }], lines
 * 1-based, columns 0-based as in Stryker's `file:line:column-line:column` ranges.
 */
export async function mutantsIn(rangesByFile) {
  // Loaded here: scripts/ci-plan.mjs reads this module's rules before npm install.
  const { Instrumenter } = await import("@stryker-mutator/instrumenter");
  const files = [...rangesByFile].map(([file, ranges]) => ({
    name: file,
    content: readFileSync(file, "utf8"),
    mutate:
      ranges === "all"
        ? true
        : ranges.map((range) =>
            Array.isArray(range)
              ? {
                  start: { line: range[0] - 1, column: 0 },
                  end: { line: range[1] - 1, column: Number.MAX_SAFE_INTEGER },
                }
              : {
                  start: { line: range.line - 1, column: range.column },
                  end: { line: range.endLine - 1, column: range.endColumn },
                },
          ),
  }));
  const { mutants } = await new Instrumenter(quietLogger).instrument(files, {
    plugins: null,
    excludedMutations: [],
    ignorers: [],
  });
  return mutants
    .filter((mutant) => mutant.status !== "Ignored")
    .map(({ fileName, location, mutatorName, replacement }) => ({
      file: fileName,
      line: location.start.line + 1,
      column: location.start.column,
      endLine: location.end.line + 1,
      endColumn: location.end.column,
      mutator: mutatorName,
      replacement,
    }));
}

/** Whether mutant `inner`'s code lies within mutant `outer`'s (Stryker mutates every such one). */
function within(outer, inner) {
  if (outer.file !== inner.file) return false;
  const startsAfter = outer.line < inner.line || (outer.line === inner.line && outer.column <= inner.column);
  const endsBefore =
    outer.endLine > inner.endLine || (outer.endLine === inner.endLine && outer.endColumn >= inner.endColumn);
  return startsAfter && endsBefore;
}

/** A 32-bit seed from any text (FNV-1a), so that a commit id can seed the sample. */
export function seedOf(text) {
  let hash = 0x811c9dc5;
  for (const char of String(text)) hash = Math.imul(hash ^ char.codePointAt(0), 0x01000193) >>> 0;
  return hash;
}

/** mulberry32: a small seeded generator, the same numbers for the same seed on every machine. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const key = (m) =>
  `${m.file}:${m.line}:${m.column}-${m.endLine}:${m.endColumn} ${m.mutator} ${m.replacement}`;

/**
 * At most `cap` of the mutants, the same ones for the same seed: shuffled by the seed, then taken
 * in that order. Stryker is given each one's exact place (`file:line:column-line:column`), and
 * mutates everything within it, so a mutant is taken with the ones inside its code, and passed over
 * when they would not all fit or are more than a tenth of the cap (at least 4). Returns { chosen, mutate, all }: `mutate` the entries for Stryker,
 * `chosen` the mutants those entries make (so the count is known before Stryker runs). With no cap,
 * or no more mutants than it, every mutant, and `mutate` null (the line ranges are the entries).
 */
export function sampleMutants(mutants, cap, seed) {
  const all = [...mutants].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (cap === undefined || cap === null || all.length <= cap) return { chosen: all, mutate: null, all };
  const next = random(seed);
  const order = [...all];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  // A place holding many mutants (a whole function's body removed) would bring them all at once, and
  // taken early it would fill the sample from one spot: a place holds at most a tenth of the cap (or
  // 4: an operator's replacements share one place).
  const largest = Math.max(4, Math.floor(cap / 10));
  const taken = new Set();
  const places = [];
  for (const mutant of order) {
    if (taken.size >= cap) break;
    if (taken.has(key(mutant))) continue;
    const inside = all.filter((other) => within(mutant, other) && !taken.has(key(other)));
    if (taken.size + inside.length > cap || inside.length > largest) continue;
    for (const other of inside) taken.add(key(other));
    places.push(mutant);
  }
  const chosen = all.filter((mutant) => taken.has(key(mutant)));
  const mutate = [
    ...new Set(places.map((m) => `${m.file}:${m.line}:${m.column}-${m.endLine}:${m.endColumn}`)),
  ].sort();
  return { chosen, mutate, all };
}

/**
 * Each folder's score from Stryker's JSON report, as Stryker counts it: detected (killed, timed out)
 * over valid mutants (those, survived and not covered); mutants that did not compile, errored at run
 * time or were ignored count for nothing. A folder passes at or above its threshold (an unknown
 * folder's is 0). Returns [{ folder, killed, survived, noCoverage, score, threshold, ok }], sorted.
 */
export function folderScores(report, folders) {
  const byFolder = new Map();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const folder = folderOf(file, folders) ?? file.replace(/\/[^/]*$/, "");
    const counts = byFolder.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0 };
    for (const { status } of mutants) {
      if (status === "Killed" || status === "Timeout") counts.killed += 1;
      else if (status === "Survived") counts.survived += 1;
      else if (status === "NoCoverage") counts.noCoverage += 1;
    }
    byFolder.set(folder, counts);
  }
  return [...byFolder]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([folder, { killed, survived, noCoverage }]) => {
      const valid = killed + survived + noCoverage;
      const score = valid === 0 ? 100 : (100 * killed) / valid;
      // Stryker's other figure, over the code the tests executed only: printed beside, never gated on
      // (decision 0071): a line no test executes is a gap in the tests as much as a survivor is.
      const covered = killed + survived === 0 ? 100 : (100 * killed) / (killed + survived);
      const threshold = folders[folder] ?? 0;
      const bound = plausibleScore(killed, valid);
      return {
        folder,
        killed,
        survived,
        noCoverage,
        score,
        covered,
        bound,
        threshold,
        ok: bound >= threshold,
      };
    });
}

/**
 * The highest score a folder can plausibly have, given that `killed` of the `valid` mutants a run drew
 * from it were detected: the upper end of the one-sided 95 % Wilson score interval (decision 0071).
 * CI mutates a sample (the changed lines, at most 20 of their mutants), so its score is an estimate of
 * the folder's; the gate fails a folder only when the sample shows it below its threshold beyond
 * sampling error. The bound is never under the score itself and narrows towards it as more mutants
 * run (all 100 detected of 100: 100 %; 3 of 20: 32.2 %; 4 of 5: 95.4 %).
 *
 * @example plausibleScore(3, 20) // 32.2…
 */
export function plausibleScore(killed, valid) {
  // Every mutant detected: the bound is 100 exactly (the formula gives it up to rounding).
  if (killed >= valid) return 100;
  const z = 1.645;
  const p = killed / valid;
  const spread = z * Math.sqrt((p * (1 - p)) / valid + (z * z) / (4 * valid * valid));
  return Math.min(100, (100 * (p + (z * z) / (2 * valid) + spread)) / (1 + (z * z) / valid));
}

/** One line per folder, as printed and kept in reports/stryker/scores.txt. */
export function scoreLine({ folder, killed, survived, noCoverage, score, covered, bound, threshold, ok }) {
  return `${folder.padEnd(22)} ${score.toFixed(1).padStart(5)} %  (killed ${killed}, survived ${survived}, no coverage ${noCoverage}; threshold ${threshold} %; at most ${(bound ?? score).toFixed(1)} % by this sample; over executed code ${(covered ?? score).toFixed(1)} %) ${ok ? "ok" : "BELOW"}`;
}

/**
 * CI's verdict on a run (decision 0071): the exit status of the part, 0 when every folder mutated may
 * be at or above its threshold (the score over every valid mutant, not covered ones included, with
 * this sample's allowance: `plausibleScore`), 1 when the sample shows one below it, and the line that
 * says which. No folder (nothing valid ran) passes. A folder named in `reportedOnly` (folder → why) is
 * printed with its reason when below and never fails the part (CI's changed lines, decision 0071).
 */
export function gateVerdict(scores, reportedOnly = {}) {
  const below = scores.filter(({ ok, folder }) => !ok && !(folder in reportedOnly));
  const advisory = scores
    .filter(({ ok, folder }) => !ok && folder in reportedOnly)
    .map(
      ({ folder, score, threshold }) =>
        `${folder} ${score.toFixed(1)} % < ${threshold} % (reported, not gated: ${reportedOnly[folder]})`,
    );
  const noted = advisory.length > 0 ? `; ${advisory.join("; ")}` : "";
  if (below.length === 0) {
    return {
      exit: 0,
      line: `Gate: passed, every folder at or above its threshold (${scores.length} folder(s))${noted}`,
    };
  }
  const named = below.map(
    ({ folder, score, bound, threshold }) =>
      `${folder} ${score.toFixed(1)} % (at most ${bound.toFixed(1)} %) < ${threshold} %`,
  );
  return { exit: 1, line: `Gate: FAILED, below the threshold: ${named.join(", ")}${noted}` };
}

/**
 * The mutants a run left standing, from Stryker's JSON report: survived and not covered (no test
 * executes its code), each as `file:line:column mutator → replacement`, by file and line, so CI's log
 * names every gap in the changed lines.
 */
export function standingMutants(report) {
  const lines = [];
  for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const standing = mutants
      .filter(({ status }) => status === "Survived" || status === "NoCoverage")
      .sort(
        (a, b) =>
          a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column,
      );
    for (const { status, location, mutatorName, replacement } of standing) {
      const what = `${mutatorName} → ${String(replacement ?? "")
        .replace(/\s+/g, " ")
        .slice(0, 60)}`;
      lines.push(
        `${status === "NoCoverage" ? "no coverage" : "survived   "} ${file}:${location.start.line}:${location.start.column} ${what}`,
      );
    }
  }
  return lines;
}

/**
 * The modules a file imports at run time by a relative path, as paths from the root (`import type`
 * is erased and runs nothing). `file` is the importing file's path from the root.
 */
export function relativeImports(file, source) {
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s*"(\.{1,2}\/[^"]+)"/gms),
    ...source.matchAll(/^\s*import\s*"(\.{1,2}\/[^"]+)"/gm),
    ...source.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
  ].map((match) => match[1]);
  const folder = file.includes("/") ? file.replace(/\/[^/]*$/, "") : ".";
  return specifiers.map((specifier) => {
    const parts = [];
    for (const part of `${folder}/${specifier}`.split("/")) {
      if (part === "..") parts.pop();
      else if (part !== ".") parts.push(part);
    }
    return parts.join("/");
  });
}

/**
 * The test files that reach a source file: those that import it (at most `maxDirect`); when none
 * does, those that import a module importing it, and so on up (at most `depth` steps), stopping at
 * the first step that finds any, and taking at most `max` of those. Unit tests (under src/) first,
 * then by name. Stryker runs each once before the mutants (to learn which test reaches which
 * mutant), and a module high in the host is imported by scores of integration tests. `tests` and
 * `modules` map a test file or a source module to what it imports (relativeImports). Returns
 * { tests, leftOut }: those taken, and how many more the caps left out.
 */
export function testsReaching(
  file,
  tests,
  modules,
  { max = 4, maxDirect = Number.POSITIVE_INFINITY, depth = 4 } = {},
) {
  let level = new Set([file]);
  const seen = new Set(level);
  for (let step = 0; step <= depth && level.size > 0; step++) {
    const found = [...tests]
      .filter(([, imports]) => [...imports].some((module) => level.has(module)))
      .map(([test]) => test)
      .sort((a, b) => Number(!a.startsWith("src/")) - Number(!b.startsWith("src/")) || (a < b ? -1 : 1));
    const most = step === 0 ? maxDirect : max;
    if (found.length > 0) return { tests: found.slice(0, most), leftOut: Math.max(0, found.length - most) };
    const up = new Set();
    for (const [module, imports] of modules) {
      if (!seen.has(module) && [...imports].some((imported) => level.has(imported))) up.add(module);
    }
    for (const module of up) seen.add(module);
    level = up;
  }
  return { tests: [], leftOut: 0 };
}
