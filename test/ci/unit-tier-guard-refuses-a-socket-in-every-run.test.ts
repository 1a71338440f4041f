// The unit tier's guard (test/helpers/unit-tier-guard.mjs) is loaded into every test process, and
// refuses a socket while unit tests run, also when npm test runs them beside integration files: a
// group of unit files marks itself so (scripts/test-group-entry.mjs). It once guarded only runs of
// unit files alone, so two unit tests that listened on sockets passed npm test.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { groupEntry } from "../../scripts/test-group-entry.mjs";

const GUARD = resolve("test/helpers/unit-tier-guard.mjs");

describe("the unit tier's guard", () => {
  const folder = mkdtempSync(join(tmpdir(), "possekit-guard-"));
  after(() => rmSync(folder, { recursive: true, force: true }));

  const listens = join(folder, "listens.test.mjs");
  writeFileSync(
    listens,
    [
      'import assert from "node:assert/strict";',
      'import { execFile } from "node:child_process";',
      'import { createServer } from "node:net";',
      'import { it } from "node:test";',
      'import { promisify } from "node:util";',
      'it("listens on a socket", async () => {',
      "  const server = createServer();",
      '  await new Promise((done) => server.listen(0, "127.0.0.1", done));',
      "  await new Promise((done) => server.close(done));",
      "});",
      'it("runs a child process", async () => {',
      '  const { stdout } = await promisify(execFile)(process.execPath, ["-p", "6 * 7"]);',
      '  assert.equal(stdout.trim(), "42");',
      "});",
    ].join("\n"),
  );

  /** Runs a group of `listens` under a runner of its own with the guard, as scripts/test.mjs does. */
  const runGroup = (unit: boolean) => {
    const entry = join(folder, unit ? "unit.test.mjs" : "integration.test.mjs");
    writeFileSync(entry, groupEntry([listens], { unit }));
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    return spawnSync(process.execPath, ["--import", GUARD, "--test", "--test-reporter=tap", entry], {
      encoding: "utf8",
      env,
    });
  };

  it("refuses a socket and a child process in a group of unit files, naming where to move the file", () => {
    const run = runGroup(true);
    assert.match(run.stdout, /^# fail 2$/m, run.stdout);
    assert.match(run.stdout, /Listening on a socket in a unit test: .*Move the file under test\//);
    assert.match(run.stdout, /child_process\.execFile in a unit test/);
  });

  it("lets a group of integration files listen and run child processes as they were", () => {
    const run = runGroup(false);
    assert.match(run.stdout, /^# pass 2$/m, run.stdout);
    assert.match(run.stdout, /^# fail 0$/m, run.stdout);
  });
});
