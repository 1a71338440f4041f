// The why stays findable (docs/decisions/README.md): comments and docs cite the decision they rest
// on ("decision 0014"), whose file is in docs/decisions, never an issue number, which nothing in the
// repository resolves. Each decision says the issue it came from, and the index lists every one.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

const FOLDERS = ["src", "test", "scripts", "dev", "interop", "docs", "views", "bench", ".ci"];
const DECISIONS = "docs/decisions";
const TEXT = /\.(ts|mts|mjs|js|md|njk|json|sh|yml|yaml|css|sql)$|^\.ci\/[^./]+$/;
const SKIPPED = new Set(["node_modules", "dist", ".git"]);

// Written in two parts so that this file's own source is not a citation.
const ISSUE_CITATION = new RegExp(`\\b${"issue"} \\d+`, "gi");
/** "decision 0014", "decisions 0035, 0036 and 0040", "decisions 0046 to 0051". */
const DECISION_CITATION = /\bdecisions? (\d{4}(?:(?:, | and | to )\d{4})*)/gi;

function* textFiles(folder: string): Generator<string> {
  for (const name of readdirSync(join(PACKAGE_ROOT, folder))) {
    if (SKIPPED.has(name)) continue;
    const path = `${folder}/${name}`;
    const stat = statSync(join(PACKAGE_ROOT, path), { throwIfNoEntry: false });
    if (stat?.isDirectory()) yield* textFiles(path);
    else if (stat?.isFile() && TEXT.test(path)) yield path;
  }
}

/** Each match of `pattern` in the files, as "path:line: text", with the match for the caller. */
function matchesIn(files: string[], pattern: RegExp): Array<{ where: string; match: RegExpExecArray }> {
  const found: Array<{ where: string; match: RegExpExecArray }> = [];
  for (const path of files) {
    readFileSync(join(PACKAGE_ROOT, path), "utf8")
      .split("\n")
      .forEach((line, index) => {
        for (const match of line.matchAll(pattern))
          found.push({ where: `${path}:${index + 1}: ${match[0]}`, match });
      });
  }
  return found;
}

const files = FOLDERS.flatMap((folder) => [...textFiles(folder)]);
const decisionFiles = readdirSync(join(PACKAGE_ROOT, DECISIONS)).filter((name) =>
  /^\d{4}-.+\.md$/.test(name),
);
const numbers = new Set(decisionFiles.map((name) => name.slice(0, 4)));

describe("comments and docs cite decisions that exist", () => {
  it("cite no issue number outside docs/decisions", () => {
    const outside = files.filter((path) => !path.startsWith(`${DECISIONS}/`));
    assert.ok(
      outside.some((path) => path.startsWith("src/")),
      "the source files were found",
    );
    const citations = matchesIn(outside, ISSUE_CITATION).map(({ where }) => where);
    assert.deepEqual(
      citations,
      [],
      "cite the decision it rests on instead (docs/decisions/README.md; a new one gets the next number)",
    );
  });

  it("cite only decision numbers with a file in docs/decisions", () => {
    const citations = matchesIn(files, DECISION_CITATION);
    assert.ok(citations.length > 100, `the citations were found (${citations.length})`);
    const missing = citations
      .filter(({ match }) => (match[1]?.match(/\d{4}/g) ?? []).some((number) => !numbers.has(number)))
      .map(({ where }) => where);
    assert.deepEqual(missing, [], `no such decision in ${DECISIONS}`);
  });

  it("each decision has one number, says its issue, and is in the index", () => {
    assert.equal(numbers.size, decisionFiles.length, "two decision files share a number");
    const index = readFileSync(join(PACKAGE_ROOT, DECISIONS, "README.md"), "utf8");
    for (const name of decisionFiles) {
      const text = readFileSync(join(PACKAGE_ROOT, DECISIONS, name), "utf8");
      assert.match(text, /^From issue \d+/m, `${name} says the issue it came from`);
      assert.match(
        text,
        /^## Context$[\s\S]*^## Decision$[\s\S]*^## Consequences$/m,
        `${name} has its three parts`,
      );
      assert.ok(index.includes(`](${name})`), `${name} is listed in ${DECISIONS}/README.md`);
    }
  });
});
