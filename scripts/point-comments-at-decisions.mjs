#!/usr/bin/env node
// One-off: rewrites every "issue N" / "Issue N, point M" citation in comments and docs to the
// decision it rests on ("decision 0007"; docs/decisions/README.md), because nothing in the
// repository resolves an issue number. Run it once more on the merged main after the other branches
// land, then delete it. It matches text, never line numbers, so it can run again (a rewritten
// citation no longer matches), and prints every citation it could not map, which it leaves as it is.
//
//   node scripts/point-comments-at-decisions.mjs            rewrite, print counts and what is left
//   node scripts/point-comments-at-decisions.mjs --dry-run  print the same, write nothing
//   node scripts/point-comments-at-decisions.mjs --list     also print each citation and its decision
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const FOLDERS = ["src", "test", "scripts", "dev", "interop", "docs", "views", "bench", ".ci"];
const SKIPPED = ["docs/decisions/", "scripts/point-comments-at-decisions.mjs", "node_modules/"];
const TEXT = /\.(ts|mts|mjs|js|md|njk|json|sh|yml|yaml|css|sql)$|^\.ci\/[^.]+$/;

// A citation: "issue 29", "Issue 29, item 7", "issue 29 items 2, 3 and 8", "Issue 31, points 1 and
// 2", "Issue 13, finding 4", "Issue 29, items 2–4"; then a section label of the issue that only
// makes sense beside its number ("Issue 4, Requests:"), swallowed with it.
const NUMBERS = String.raw`\d+(?:(?:, | and |–|-)\d+)*`;
const LABELS = [
  "What is awaiting and Per post",
  "Credentials and Errors",
  "Credentials",
  "Requests",
  "Responses",
  "Errors",
  "Per post",
  "The plug-in",
  "Also",
  "also",
  "done when",
  '"Prove it"',
  "the foundation",
];
const CITATION = new RegExp(
  String.raw`\b([Ii])ssue (\d+)(?:,? (item|point|finding)s? (${NUMBERS}))?(?:, (?:${LABELS.join("|")})(?=[:,]))?`,
  "g",
);

/**
 * The mapping: a citation ("issue 29", or "issue 29 item 7" with its item) and, optionally, where it
 * stands → the decision it rests on. Where: a pattern of the file's path (in test/mutation/mutants.json,
 * of "mutants.json#<mutant id>"), or `{ line }`, a pattern of the words around it on its line. The first
 * entry that matches wins, so the entries naming a place come before their issue's default. An item
 * list ("items 2 and 3") maps each item on its own.
 */
const MAPPING = [
  ["issue 40", null, 54],
  ["issue 42", null, 55],
  // Issue 2: the foundation.
  ["issue 2", /csrf/, 3],
  ["issue 2", /(config|serve-first-start|serve-refuses)/, 5],
  ["issue 2", /(credential|sign-in|401-|403-insufficient|token-accepted)/, 2],
  ["issue 2", /error-responses/, 4],
  ["issue 2", /429/, 6],
  ["issue 2", null, 1],
  // Issue 4: the syndication endpoint.
  ["issue 4", /(credentials|403-insufficient|401-no-or-bad)/, 2],
  ["issue 4", /429-rate-limited/, 6],
  [
    "issue 4",
    /(cli-syndicate|409-batch|posts-created-during|client-disconnects|batch-oldest-first|bench\/README)/,
    7,
  ],
  ["issue 4", /racing-a-batch/, 8],
  ["issue 4", /(hanging-target|partial-when|unknown-uid)/, 10],
  ["issue 4", null, 9],
  ["issue 5", null, 11],
  ["issue 6", null, 12],
  ["issue 8", null, 13],
  // Issue 12: unattended syndication.
  ["issue 12 item 5", null, 16],
  ["issue 12", /(folder-lock|cli-syndicate)/, 16],
  ["issue 12", /(404-then-200|live-check|not-live)/, 15],
  ["issue 12", /sigkill-mid-run/, 13],
  ["issue 12", null, 14],
  // Issue 13: the first security pass.
  ["issue 13 item 3", null, 6],
  ["issue 13 item 4", null, 6],
  ["issue 13 item 5", null, 17],
  ["issue 13 item 6", null, 17],
  ["issue 13 item 7", null, 12],
  ["issue 13 item 8", null, 18],
  ["issue 13", /429/, 6],
  ["issue 13", /migrations/, 12],
  ["issue 13", null, 17],
  ["issue 15", null, 19],
  // Issue 16: when something goes wrong.
  ["issue 16 item 6", null, 23],
  ["issue 16 item 7", null, 24],
  ["issue 16", /(axe|syndicate-page-shows-runs)/, 24],
  ["issue 16", /(retry-everything|mutants\.json#retry)/, 21],
  ["issue 16", /(streams-results|summary)/, 22],
  ["issue 16", /(serve-config|serve-refuses)/, 5],
  ["issue 16", /unknown-uid/, 10],
  ["issue 16", null, 20],
  // Issue 17: what each target receives.
  [
    "issue 17",
    /(preview-equals|copy-editing|preview-view|routes\/preview|200-preview|mutants\.json#preview)/,
    25,
  ],
  ["issue 17", /(own-texts|syndicate-text|edit-the-mastodon-text)/, 26],
  ["issue 17", { line: /own words/ }, 26],
  ["issue 17", /(copy-template|invalid-template|mutants\.json#template)/, 27],
  ["issue 17", null, 28],
  // Issue 18: light enough for a small server.
  ["issue 18", /(pglite|first-start|keeping-the-loop|build\.mjs|host\.ts)/, 30],
  ["issue 18", { line: /(empty database|initdb)/ }, 30],
  ["issue 18", null, 29],
  ["issue 19", null, 31],
  // Issue 28: publishing.
  ["issue 28", /(batch\.ts|post-source\.ts|write-back-of-a-batch)/, 33],
  ["issue 28", null, 32],
  // Issue 29: posts from any site's feed.
  ["issue 29 item 1", null, 34],
  ["issue 29 item 2", null, 35],
  ["issue 29 item 3", null, 36],
  ["issue 29 item 4", null, 37],
  ["issue 29 item 5", null, 37],
  ["issue 29 item 6", null, 38],
  ["issue 29 item 7", null, 39],
  ["issue 29 item 8", null, 40],
  ["issue 29", /(copies|#copies-)/, 39],
  ["issue 29", /(#origin-|_feeds\.njk|syndicate-page\.md)/, 40],
  [
    "issue 29",
    /(#feed-|#websub-|feed-polling|feed-push|feeds\.md|feeds\.json|polite|websub|private-or-oversized)/,
    37,
  ],
  ["issue 29", { line: /(feed-polling|feed-push)/ }, 37],
  ["issue 29", /(entry-plan|#feeds-mass)/, 36],
  ["issue 29", null, 34],
  // Issue 30: inside Indiekit.
  ["issue 30 item 1", null, 41],
  ["issue 30 item 2", null, 42],
  ["issue 30 item 3", null, 42],
  ["issue 30 item 4", null, 41],
  ["issue 30 item 5", null, 41],
  ["issue 30", /(#remote-source|sources\/)/, 42],
  ["issue 30", null, 41],
  // Issue 31: the second security pass.
  ["issue 31 item 1", null, 43],
  ["issue 31 item 2", null, 43],
  ["issue 31 item 3", null, 44],
  ["issue 31 item 4", null, 44],
  ["issue 31 item 5", null, 45],
  ["issue 31 item 6", null, 45],
  ["issue 31 item 7", null, 45],
  ["issue 31", /(token-registry|revok)/, 43],
  ["issue 31", /(image|photo|multipart)/, 44],
  ["issue 31", /(lock-file)/, 18],
  ["issue 31", null, 45],
  // Issue 32: what you see is what is sent.
  ["issue 32 item 1", null, 46],
  ["issue 32 item 2", null, 47],
  ["issue 32 item 3", null, 48],
  ["issue 32 item 4", null, 49],
  ["issue 32 item 5", null, 50],
  ["issue 32 item 6", null, 51],
  [
    "issue 32",
    /(typed-text|shown-copy|post-syndicate|copy-shown|#typed-text|#row-send|#bluesky-link-facet|axe-every-page)/,
    46,
  ],
  ["issue 32", /(plain-text|#content-text|#host-writes-content-text|#plain-text)/, 47],
  [
    "issue 32",
    /(target-pauses|target-view|due-work|rate-limited-target|scale\/|#rate-limit-pause|#pause-|#single-post-ignores|#page-shows-paused|#refused-target|#scheduler-due-for-paused)/,
    48,
  ],
  ["issue 32", /(scheduler\.ts|due\.ts|runs\.ts|syndicate-all|#scheduled-run|#run-due)/, 49],
  ["issue 32", /(notifier|failure-notices|#notify-)/, 50],
  ["issue 32", { line: /notifications/ }, 50],
  ["issue 32", { line: /(retry of everything|retry as a retry)/ }, 21],
  ["issue 32", /(run-summary|#summary-says)/, 22],
  ["issue 32", null, 51],
  ["issue 33", /(core-errors|post-source|contract)/, 52],
  ["issue 33", null, 53],
];

const decisionFiles = readdirSync(join(root, "docs/decisions")).filter((name) => /^\d{4}-/.test(name));
for (const [citation, , decision] of MAPPING) {
  if (!decisionFiles.some((name) => name.startsWith(`${String(decision).padStart(4, "0")}-`))) {
    throw new Error(
      `The mapping sends "${citation}" to decision ${decision}, which has no file in docs/decisions`,
    );
  }
}

/** The items of a list: "2, 3 and 8" → [2, 3, 8]; "2–4" → [2, 3, 4]. */
function itemsOf(list) {
  const range = /^(\d+)[–-](\d+)$/.exec(list);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  }
  return list.split(/, | and /).map(Number);
}

const standsIn = (place, where) =>
  !place || (place instanceof RegExp ? place.test(where.path) : place.line.test(where.line));

function decisionOf(citation, where) {
  const entry = MAPPING.find(([text, place]) => text === citation && standsIn(place, where));
  return entry?.[2];
}

/** The decisions one citation rests on, or undefined when the mapping has none for it. Its items,
 * points and findings are all items to the mapping. */
function decisionsOf(issue, kind, list, where) {
  const withItems = kind ? itemsOf(list).map((item) => decisionOf(`issue ${issue} item ${item}`, where)) : [];
  if (withItems.length && withItems.every((decision) => decision !== undefined))
    return [...new Set(withItems)];
  const bare = decisionOf(`issue ${issue}`, where);
  return bare === undefined ? undefined : [bare];
}

const numbered = (decision) => String(decision).padStart(4, "0");
const cited = (decisions) =>
  decisions.length === 1
    ? `ecision ${numbered(decisions[0])}`
    : `ecisions ${decisions.slice(0, -1).map(numbered).join(", ")} and ${numbered(decisions.at(-1))}`;

const listing = process.argv.includes("--list");

function rewrite(text, whereOfLine) {
  let count = 0;
  const unmapped = [];
  const lines = text.split("\n").map((line, index) =>
    line.replace(CITATION, (match, initial, issue, kind, list) => {
      const where = { path: whereOfLine(index), line };
      const decisions = decisionsOf(issue, kind, list, where);
      if (!decisions) {
        unmapped.push(`${where.path}:${index + 1}: ${match}`);
        return match;
      }
      count += 1;
      if (listing) console.log(`${where.path}:${index + 1}: ${match} → d${cited(decisions)}`);
      return `${initial === "I" ? "D" : "d"}${cited(decisions)}`;
    }),
  );
  return { text: lines.join("\n"), count, unmapped };
}

function* filesUnder(folder) {
  for (const name of readdirSync(join(root, folder))) {
    const path = `${folder}/${name}`;
    if (SKIPPED.some((skipped) => `${path}/`.startsWith(skipped) || path === skipped)) continue;
    if (statSync(join(root, path)).isDirectory()) yield* filesUnder(path);
    else if (TEXT.test(path)) yield path;
  }
}

/** In mutants.json a citation stands in a mutant: its place is the mutant's id. */
function mutantIdsByLine(text) {
  let id = "";
  return text.split("\n").map((line) => {
    id = /^\s*"id": "([^"]+)"/.exec(line)?.[1] ?? id;
    return id;
  });
}

const dryRun = process.argv.includes("--dry-run");
let rewritten = 0;
const left = [];
for (const folder of FOLDERS) {
  for (const path of filesUnder(folder)) {
    const before = readFileSync(join(root, path), "utf8");
    if (!/\bissue \d/i.test(before)) continue;
    const ids = path === "test/mutation/mutants.json" ? mutantIdsByLine(before) : null;
    const result = rewrite(before, (index) => (ids ? `mutants.json#${ids[index]}` : path));
    rewritten += result.count;
    left.push(...result.unmapped);
    if (result.text !== before && !dryRun) writeFileSync(join(root, path), result.text);
  }
}
for (const line of left) console.log(`not mapped: ${line}`);
console.log(
  `${rewritten} citations ${dryRun ? "would be " : ""}rewritten, ${left.length} not mapped (${relative(process.cwd(), root) || "."})`,
);
process.exitCode = left.length ? 1 : 0;
