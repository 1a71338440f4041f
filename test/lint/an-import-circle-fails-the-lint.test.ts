// `npm run lint` (biome check) fails on an import circle, type-only imports included: the repository's
// own biome.json is run on two modules that import each other. They are written to a folder of their
// own, not into the repository, where the lint part of CI, running beside this test, would see them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repository = fileURLToPath(new URL("../../", import.meta.url));
const biome = join(repository, "node_modules/@biomejs/biome/bin/biome");

const moduleA = 'import type { B } from "./b.ts";\n\nexport interface A {\n  b?: B;\n}\n';
const moduleBImportingA = 'import type { A } from "./a.ts";\n\nexport interface B {\n  a?: A;\n}\n';
const moduleBAlone = "export interface B {\n  a?: string;\n}\n";

async function lint(folder: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [biome, "check", "--colors=off", "."], {
      cwd: folder,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("biome check with the repository's biome.json", () => {
  let folder: string;
  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "possekit-import-circle-"));
    copyFileSync(join(repository, "biome.json"), join(folder, "biome.json"));
    // The config reads .gitignore through git (vcs.useIgnoreFile): the folder is a repository too.
    await run("git", ["init", "--quiet"], { cwd: folder });
    writeFileSync(join(folder, "a.ts"), moduleA);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("passes two modules when one imports the other", async () => {
    writeFileSync(join(folder, "b.ts"), moduleBAlone);
    const { code, output } = await lint(folder);
    assert.equal(code, 0, output);
  });

  it("fails, naming noImportCycles at both imports, when they import each other by type only", async () => {
    writeFileSync(join(folder, "b.ts"), moduleBImportingA);
    const { code, output } = await lint(folder);
    assert.notEqual(code, 0, output);
    assert.match(output, /a\.ts:1:\d+ lint\/suspicious\/noImportCycles/);
    assert.match(output, /b\.ts:1:\d+ lint\/suspicious\/noImportCycles/);
  });
});
