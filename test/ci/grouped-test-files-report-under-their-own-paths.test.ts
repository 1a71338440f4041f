// Test files that share a process (scripts/test.mjs's groups) are reported each under its own path,
// its failures too, though they import a module that awaits at its top level, as the embedded
// database's does: CI's list of failed files and its slowest files read those paths.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { groupEntry } from "../../scripts/test-group-entry.mjs";

describe("a group of test files in one process", () => {
  const folder = mkdtempSync(join(tmpdir(), "possekit-group-"));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("reports each file's tests and failures under that file's path", () => {
    writeFileSync(
      join(folder, "shared.mjs"),
      "await new Promise((resolve) => setTimeout(resolve, 50));\nexport const ready = true;\n",
    );
    const testFile = (name: string, passes: boolean) =>
      [
        'import assert from "node:assert/strict";',
        'import { describe, it } from "node:test";',
        'import { ready } from "./shared.mjs";',
        `describe("${name}'s suite", () => {`,
        `  it("${name}'s test", () => assert.ok(ready && ${passes}));`,
        "});",
      ].join("\n");
    const files = ["first", "second", "third"].map((name) => join(folder, `${name}.test.mjs`));
    writeFileSync(files[0] as string, testFile("first", true));
    writeFileSync(files[1] as string, testFile("second", false));
    writeFileSync(files[2] as string, testFile("third", true));
    const entry = join(folder, "01.test.mjs");
    writeFileSync(entry, groupEntry(files));

    // A runner of its own, not one reporting to this one's (NODE_TEST_CONTEXT).
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", entry], {
      encoding: "utf8",
      env,
    });
    const topLevel = run.stdout.split("\n").filter((line) => /^(not )?ok \d+ - /.test(line));
    assert.deepEqual(topLevel, [`ok 1 - ${files[0]}`, `not ok 2 - ${files[1]}`, `ok 3 - ${files[2]}`]);
    // Each file's suite holds that file's test, and only it.
    for (const name of ["first", "second", "third"]) {
      const suite = run.stdout.indexOf(`# Subtest: ${join(folder, `${name}.test.mjs`)}`);
      const own = run.stdout.indexOf(`# Subtest: ${name}'s suite`);
      assert.ok(suite >= 0 && own > suite, `${name}'s suite follows its path`);
    }
    assert.match(run.stdout, /^# pass 2$/m);
    assert.match(run.stdout, /^# fail 1$/m);
  });
});
