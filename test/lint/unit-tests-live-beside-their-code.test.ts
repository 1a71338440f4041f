// The unit tier is found by location (scripts/test-tiers.mjs, docs/testing.md "Tiers"): every
// src/**/*.test.ts is unit. A unit test put under test/ would run as integration, without the unit
// tier's guard, and scripts/test.mjs refuses to run then; this shows the check tells the two apart.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, describe, it } from "node:test";
import { misplacedUnitTests, tierOf } from "../../scripts/test-tiers.mjs";

const root = join(import.meta.dirname, "..", "..");

function testFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });
}

describe("unit tests live beside their code", () => {
  const tree = mkdtempSync(join(tmpdir(), "possekit-tiers-"));
  after(() => rmSync(tree, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  };
  write("src/add.ts", "export const add = (a: number, b: number) => a + b;\n");
  write(
    "src/database.ts",
    'import { PGlite } from "@electric-sql/pglite";\nexport const open = () => new PGlite();\n',
  );
  const pure = [
    'import assert from "node:assert/strict";',
    'import { it } from "node:test";',
    'import type { Server } from "node:http";',
    'import { add } from "../../src/add.ts";',
    "it('adds', () => assert.equal(add(1, 2), 3));",
  ].join("\n");

  it("every test under src/ is unit, and under test/ integration unless SYSTEM names it", () => {
    assert.equal(tierOf("src/net/private-addresses.test.ts"), "unit");
    assert.equal(tierOf("test/accounts/anything.test.ts"), "integration");
    assert.equal(tierOf("test/e2e/anything.test.ts"), "system");
  });

  it("refuses a test under test/ that imports only pure modules and src/ modules that start nothing", () => {
    write("test/maths/add.test.ts", pure);
    write("src/add.test.ts", pure.replace("../../src/add.ts", "./add.ts"));
    assert.deepEqual(misplacedUnitTests(tree, ["test/maths/add.test.ts", "src/add.test.ts"]), [
      "test/maths/add.test.ts",
    ]);
  });

  it("passes a test under test/ that reaches a database, a helper, the network or a thread", () => {
    const files = {
      "test/maths/database.test.ts": pure
        .replace("../../src/add.ts", "../../src/database.ts")
        .replace("add", "open"),
      "test/maths/helper.test.ts": `${pure}\nimport { startServer } from "../helpers/server.ts";`,
      "test/maths/http.test.ts": `${pure}\nimport { createServer } from "node:http";`,
      "test/maths/files.test.ts": `${pure}\nimport { readFileSync } from "node:fs";`,
      "test/maths/thread.test.ts": `${pure}\nnew Worker(new URL("x", import.meta.url));`,
      "test/e2e/add.test.ts": pure,
    };
    for (const [path, text] of Object.entries(files)) write(path, text);
    assert.deepEqual(misplacedUnitTests(tree, Object.keys(files)), []);
  });

  it("finds no unit test under test/ in this repository", () => {
    assert.deepEqual(misplacedUnitTests(root, testFiles(join(root, "test"))), []);
  });
});
