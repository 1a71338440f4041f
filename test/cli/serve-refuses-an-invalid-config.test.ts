// `possekit serve --config bad.json` (issue 2): an invalid file stops the start, exiting non-zero
// with one line per problem, each naming the field and what is wrong.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./run-cli.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-cli-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

describe("possekit serve with an invalid config file", () => {
  it("exits 1 and prints one line per problem, naming the field", async () => {
    writeFileSync(
      join(cwd, "bad.json"),
      JSON.stringify({ application: { port: 99999, url: "not a url" }, publication: { timezone: 7 } }),
    );
    const { code, stdout, stderr } = await runCli(["serve", "--config", "bad.json"], {
      cwd,
      env: { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "pw" },
    });
    assert.equal(code, 1);
    assert.equal(stdout, "");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines[0], "The configuration is not valid:");
    const problems = lines.slice(1);
    assert.equal(problems.length, 3, stderr);
    assert.ok(problems.some((line) => line.startsWith("  - application.port: ")));
    assert.ok(
      problems.some((line) => line.startsWith("  - application.url: must be an absolute http(s) URL")),
    );
    assert.ok(problems.some((line) => line.startsWith("  - publication.timezone: ")));
  });

  it("exits 1 naming the file when --config points at nothing", async () => {
    const { code, stderr } = await runCli(["serve", "--config", "missing.json"], { cwd });
    assert.equal(code, 1);
    assert.match(stderr, /missing\.json: cannot be read \(ENOENT\)/);
  });

  it("exits 1 in production without SECRET, saying so", async () => {
    writeFileSync(join(cwd, "good.json"), JSON.stringify({ plugins: [] }));
    const { code, stderr } = await runCli(["serve", "--config", "good.json"], {
      cwd,
      env: { NODE_ENV: "production", PASSWORD: "pw" },
    });
    assert.equal(code, 1);
    assert.match(stderr, /\n {2}- SECRET: must be set in production/);
  });
});
