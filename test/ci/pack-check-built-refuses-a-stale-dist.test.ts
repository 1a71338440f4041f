// CI's pack part packs dist/ as the install built it (`scripts/pack-check.mjs --built`, decision
// 0072) instead of building it again: only when dist/ records exactly the sources beside it, so a
// stale build never passes for this tree's package. Each case is a copy of the script and bin/
// beside a src/ and a dist/ stamp; the script stops before npm pack.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { STAMP_FILE, sourceStamp } from "../../bin/entry.js";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A tree with src/, bin/ and the script; `stamp` what dist/ records (none: no stamp). */
function tree(stamp: "current" | "stale" | "none") {
  const root = mkdtempSync(join(tmpdir(), "possekit-pack-built-"));
  folders.push(root);
  cpSync(join(PACKAGE_ROOT, "bin"), join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "scripts"));
  cpSync(join(PACKAGE_ROOT, "scripts/pack-check.mjs"), join(root, "scripts/pack-check.mjs"));
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src/cli.ts"), "export const a = 1;\n");
  mkdirSync(join(root, "dist"));
  if (stamp !== "none") writeFileSync(join(root, "dist", STAMP_FILE), JSON.stringify(sourceStamp(root)));
  // A source edited after the build.
  if (stamp === "stale") writeFileSync(join(root, "src/cli.ts"), "export const a = 22;\n");
  return root;
}

const packBuilt = (root: string) =>
  spawnSync(process.execPath, ["scripts/pack-check.mjs", "--built", "--keep", join(root, "packed")], {
    cwd: root,
    encoding: "utf8",
  });

describe("pack-check --built", () => {
  for (const stamp of ["stale", "none"] as const) {
    it(`stops before packing when dist/ is ${stamp === "stale" ? "built from older sources" : "not stamped"}`, () => {
      const result = packBuilt(tree(stamp));
      assert.equal(result.status, 1);
      assert.match(result.stderr, /pack-check --built: dist\/ is not built from the sources here/);
      assert.doesNotMatch(result.stderr, /npm pack/);
    });
  }

  it("goes on to npm pack when dist/ records exactly the sources there", () => {
    const result = packBuilt(tree("current"));
    assert.doesNotMatch(result.stderr, /is not built from the sources here/);
    assert.match(result.stderr, /pack-check: npm pack \(dist\/ as built\)/);
  });
});
