// What CI prints last (scripts/failing-tests.mjs): every failing test by part, file and the suites
// it is nested in, read from the parts' logs, because CI's service keeps only the tail of the output.
// The logs are the runner's TAP as scripts/test.mjs leaves it (grouped files as suites named by
// their paths, a file in a process of its own named only by its failures' locations) and the
// mutation and stryker parts' verdict lines; the script runs as .ci/run runs it, in the clone's root.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

const root = mkdtempSync(join(tmpdir(), "possekit-failing-tests-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A test's TAP result at `depth`, with the YAML block the runner writes under it. */
function result(depth: number, ok: boolean, n: number, name: string, fields: string[] = []) {
  const pad = " ".repeat(depth * 4);
  return [
    `${pad}# Subtest: ${name}`,
    `${pad}${ok ? "ok" : "not ok"} ${n} - ${name}`,
    `${pad}  ---`,
    `${pad}  duration_ms: 12.5`,
    ...fields.map((field) => `${pad}  ${field}`),
    `${pad}  ...`,
  ];
}

/** A suite at `depth` around `inner` (its results one level deeper), failed by its subtests or not. */
function suite(depth: number, n: number, name: string, inner: string[], failed: boolean) {
  const pad = " ".repeat(depth * 4);
  const own = result(depth, !failed, n, name, [
    "type: 'suite'",
    ...(failed ? ["failureType: 'subtestsFailed'", "error: '1 subtest failed'"] : []),
  ]);
  const plan = inner.filter(
    (line) => line.startsWith(`${pad}    ok `) || line.startsWith(`${pad}    not ok `),
  );
  // Its subtests between its `# Subtest:` line and its own result, as the runner reports a suite.
  return [...own.slice(0, 1), ...inner, `${pad}    1..${plan.length}`, ...own.slice(1)];
}

const failure = (file: string, line: number, error: string) => [
  `location: '${join(root, file)}:${line}:5'`,
  "failureType: 'testCodeFailure'",
  "error: |-",
  `  ${error}`,
  "stack: |-",
  `  TestContext.<anonymous> (file://${join(root, file)}:${line}:42)`,
];

/** The test part's log: a group of two files, then a file in a process of its own. */
const testLog = [
  "TAP version 13",
  ...suite(
    0,
    1,
    "test/outbox.test.ts",
    [
      ...suite(
        1,
        1,
        "the outbox",
        [
          ...result(2, true, 1, "sends a post"),
          ...suite(
            2,
            2,
            "when the network fails",
            [
              ...result(
                3,
                false,
                1,
                "retries \\# three times",
                failure("test/outbox.test.ts", 14, "1 !== 3"),
              ),
              ...result(3, true, 2, "gives up"),
            ],
            true,
          ),
          ...result(2, false, 3, "keeps a draft # TODO", failure("test/outbox.test.ts", 30, "later")),
        ],
        true,
      ),
    ],
    true,
  ),
  ...suite(0, 2, "test/feed.test.ts", result(1, true, 1, "reads a feed"), false),
  "# a line the test printed",
  ...result(0, false, 3, "the status page names the run", failure("test/e2e/status.test.ts", 8, "timeout")),
  ...result(0, false, 4, join(root, "test/e2e/broken.test.ts"), [
    `location: '${join(root, "test/e2e/broken.test.ts")}:1:1'`,
    "failureType: 'testCodeFailure'",
    "exitCode: 1",
    "error: 'test failed'",
  ]),
  "1..4",
  "# tests 6",
  "# fail 3",
].join("\n");

const mutationLog = [
  "3 mutants from test/mutation/mutants.json, 2 at a time.",
  "KILLED     40 s  outbox-no-retry: A failed send is retried",
  "SURVIVED   61 s  feed-skips-first: The feed reads every entry",
  "           4 tests passed",
  "",
  "1 killed, 1 survived, 0 could not be applied, of 2.",
].join("\n");

const strykerLog = [
  "src/server 50.0 %  (killed 2, survived 2) BELOW",
  "survived    src/server/a.ts:3:4 ConditionalExpression → true",
  "Gate: FAILED, below the threshold: src/server 50.0 % (at most 80.1 %) < 60 %",
].join("\n");

/** The script's output for these parts' logs, run as .ci/run runs it. */
function printed(logs: Record<string, string>, top?: number) {
  const args = Object.entries(logs).map(([part, log]) => {
    writeFileSync(join(root, `${part}.log`), log);
    return `${part}=${join(root, `${part}.log`)}`;
  });
  const run = spawnSync(
    process.execPath,
    [join(PACKAGE_ROOT, "scripts/failing-tests.mjs"), ...(top ? ["--top", String(top)] : []), ...args],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe("the failing tests CI prints last", () => {
  it("names each failing test by part, file and suites, nested subtests included, and no suite that failed only by them", () => {
    assert.equal(
      printed({
        test: testLog,
        lint: "Checked 900 files. No fixes applied.",
        mutation: mutationLog,
        stryker: strykerLog,
      }),
      [
        "",
        "Failing tests: 5 (test 3, mutation 1, stryker 1)",
        "  test      test/outbox.test.ts: the outbox > when the network fails > retries # three times",
        "  test      test/e2e/status.test.ts: the status page names the run",
        "  test      test/e2e/broken.test.ts (the file as a whole: test failed)",
        "  mutation  SURVIVED 61 s feed-skips-first: The feed reads every entry",
        "  stryker   Gate: FAILED, below the threshold: src/server 50.0 % (at most 80.1 %) < 60 %",
        "",
      ].join("\n"),
    );
  });

  it("prints at most `top` names, each part in its turn, then how many more of which part", () => {
    assert.equal(
      printed({ test: testLog, mutation: mutationLog, stryker: strykerLog }, 4),
      [
        "",
        "Failing tests: 5 (test 3, mutation 1, stryker 1)",
        "  test      test/outbox.test.ts: the outbox > when the network fails > retries # three times",
        "  test      test/e2e/status.test.ts: the status page names the run",
        "  mutation  SURVIVED 61 s feed-skips-first: The feed reads every entry",
        "  stryker   Gate: FAILED, below the threshold: src/server 50.0 % (at most 80.1 %) < 60 %",
        "  … and 1 more (test 1): see the parts' logs",
        "",
      ].join("\n"),
    );
  });

  it("prints nothing when every part passed, a todo that fails included", () => {
    const passing = [
      "TAP version 13",
      ...suite(0, 1, "test/feed.test.ts", result(1, true, 1, "reads a feed"), false),
      ...result(0, false, 2, "keeps a draft # TODO", failure("test/draft.test.ts", 3, "later")),
      "1..2",
    ].join("\n");
    const killed = mutationLog
      .split("\n")
      .filter((line) => !/SURVIVED|tests passed/.test(line))
      .join("\n");
    assert.equal(
      printed({
        test: passing,
        mutation: killed,
        stryker: "Gate: passed, every folder at or above its threshold (1 folder(s))",
      }),
      "",
    );
  });
});
