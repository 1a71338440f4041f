// `possekit --help` and `possekit token` (decision 0029) start in a blink on a small machine: they never
// load Express, a database driver or the host; --help loads not even the config schema (zod) or the
// signer, and token only its own signer (node:crypto's HMAC), neither jose nor zod (a plain config
// needs no schema). Proved by recording every module the command resolves, through a module hook.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { cleanEnv } from "./run-cli.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-cli-imports-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

// Registered before the command runs; the hook appends each resolved URL to IMPORTS_LOG.
const HOOKS = `
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.IMPORTS_LOG, result.url + "\\n");
  return result;
}`;
const REGISTER = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

function importsOf(args: string[]): { code: number | null; stdout: string; imports: string[] } {
  const log = join(cwd, `imports-${args.join("-")}.log`);
  writeFileSync(log, "");
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      join(PACKAGE_ROOT, "bin/possekit.js"),
      ...args,
    ],
    {
      cwd,
      encoding: "utf8",
      env: cleanEnv({ IMPORTS_LOG: log, SECRET: "a-secret-of-the-import-test-0123456789", PASSWORD: "pw" }),
    },
  );
  return { code: result.status, stdout: result.stdout, imports: readFileSync(log, "utf8").split("\n") };
}

const loaded = (imports: string[], pattern: RegExp) => imports.filter((url) => pattern.test(url));
const SERVER_CODE =
  /\/node_modules\/(express|@electric-sql\/pglite|pg|nunjucks|express-rate-limit)\/|\/src\/server\/(host|app)\.ts$/;

describe("the commands that need no server load none of it", () => {
  it("--help loads no server code, no config schema and no signer", () => {
    const { code, stdout, imports } = importsOf(["--help"]);
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: possekit <command>/);
    // The hook sees the command's own modules: the proof that it records what is loaded.
    assert.ok(loaded(imports, /\/src\/cli\.ts$/).length > 0, imports.join("\n"));
    assert.deepEqual(loaded(imports, SERVER_CODE), []);
    assert.deepEqual(loaded(imports, /\/node_modules\/(zod|jose)\/|\/src\/server\/config\/load\.ts$/), []);
  });

  it("token loads its signer alone: no jose, no config schema (zod) and no server code", () => {
    const { code, stdout, imports } = importsOf(["token"]);
    assert.equal(code, 0);
    assert.match(stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.ok(loaded(imports, /\/src\/server\/auth\/token-signer\.ts$/).length > 0, imports.join("\n"));
    assert.deepEqual(loaded(imports, /\/node_modules\/jose\//), []);
    assert.deepEqual(loaded(imports, /\/node_modules\/zod\/|\/src\/server\/config\/(load|schema)\.ts$/), []);
    assert.deepEqual(loaded(imports, SERVER_CODE), []);
  });
});
