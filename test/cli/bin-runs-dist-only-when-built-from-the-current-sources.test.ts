// bin/possekit.js (decision 0029): an installed package runs its compiled dist/; a clone runs dist/ only
// when dist/ was built from exactly the sources it has now, and its TypeScript through tsx
// otherwise, so an old build never runs in development. Each case is a copy of bin/ beside a
// src/cli.ts and a dist/cli.js that say which of them ran.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { STAMP_FILE, sourceStamp } from "../../bin/entry.js";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { TYPESCRIPT_HOOKS } from "../helpers/typescript.ts";
import { cleanEnv } from "./run-cli.ts";

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const SOURCE = `export async function main(argv: string[]): Promise<number> {
  process.stdout.write(\`source \${argv.join(" ")}\\n\`);
  return 0;
}
`;
const COMPILED = `export async function main(argv) {
  process.stdout.write(\`dist \${argv.join(" ")}\\n\`);
  return 0;
}
`;

interface Layout {
  source?: boolean;
  compiled?: boolean;
  /** Records src/ in dist/ as npm run build does. */
  built?: boolean;
  /** node_modules (tsx) reachable, as in a clone after npm install. */
  devTools?: boolean;
}

function makeTree(layout: Layout): string {
  const root = mkdtempSync(join(tmpdir(), "possekit-bin-"));
  folders.push(root);
  cpSync(join(PACKAGE_ROOT, "bin"), join(root, "bin"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ type: "module" }));
  if (layout.source) {
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src/cli.ts"), SOURCE);
    writeFileSync(join(root, "tsconfig.json"), "{}\n");
  }
  if (layout.compiled) {
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist/cli.js"), COMPILED);
  }
  if (layout.built) writeFileSync(join(root, "dist", STAMP_FILE), JSON.stringify(sourceStamp(root)));
  if (layout.devTools) symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

function run(root: string, env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const environment = cleanEnv(env);
  delete environment.POSSEKIT_SOURCE;
  Object.assign(environment, env);
  const result = spawnSync(process.execPath, [...nodeArgs, join(root, "bin/possekit.js"), "token"], {
    cwd: root,
    env: environment,
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("bin/possekit.js picks the code it runs", () => {
  it("an installed package (no src/) runs dist/", () => {
    const { code, stdout } = run(makeTree({ compiled: true }));
    assert.equal(code, 0);
    assert.equal(stdout, "dist token\n");
  });

  it("a clone runs dist/ when it was built from the sources there now", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    assert.equal(run(root).stdout, "dist token\n");
  });

  it("a clone runs dist/ after a checkout touched the sources without changing them", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, "src/cli.ts"), later, later);
    assert.equal(run(root).stdout, "dist token\n");
  });

  it("a clone runs src/ through tsx once a source changed after the build, never the old dist/", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    writeFileSync(join(root, "src/cli.ts"), SOURCE.replace("source ", "edited source "));
    const { code, stdout } = run(root);
    assert.equal(code, 0);
    assert.equal(stdout, "edited source token\n");
  });

  it("a clone runs src/ once a source file was added after the build", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    writeFileSync(join(root, "src/new-module.ts"), "export const x = 1;\n");
    assert.equal(run(root).stdout, "source token\n");
  });

  it("a clone runs src/ when the build settings changed after the build", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    writeFileSync(join(root, "tsconfig.json"), '{ "compilerOptions": {} }\n');
    assert.equal(run(root).stdout, "source token\n");
  });

  it("a clone runs src/ when dist/ does not record what it was built from", () => {
    const root = makeTree({ source: true, compiled: true, devTools: true });
    assert.equal(run(root).stdout, "source token\n");
  });

  it("POSSEKIT_SOURCE=1 runs src/ even beside a current build (npm test sets it)", () => {
    const root = makeTree({ source: true, compiled: true, built: true, devTools: true });
    assert.equal(run(root, { POSSEKIT_SOURCE: "1" }).stdout, "source token\n");
  });

  it("a process started with the tests' TypeScript hooks runs src/ through them, with no tsx to load", () => {
    const root = makeTree({ source: true, compiled: true, built: true });
    writeFileSync(join(root, "src/cli.ts"), SOURCE.replace("source ", "edited source "));
    const { code, stdout, stderr } = run(root, {}, TYPESCRIPT_HOOKS);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, "edited source token\n");
  });

  it("a stale dist/ without tsx to run the sources stops with what to run, never the old code", () => {
    const root = makeTree({ source: true, compiled: true, built: true });
    writeFileSync(join(root, "src/cli.ts"), SOURCE.replace("source ", "edited source "));
    const { code, stdout, stderr } = run(root);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(stderr, /npm run build/);
    assert.doesNotMatch(stderr, /\n\s+at /);
  });

  it("an installed package without dist/ says to install it again, with no stack trace", () => {
    const { code, stderr } = run(makeTree({}));
    assert.equal(code, 1);
    assert.match(stderr, /install the package again/);
    assert.doesNotMatch(stderr, /\n\s+at /);
  });
});
