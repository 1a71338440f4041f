// `possekit --help` and `possekit <command> --help` (decision 0001) explain the commands and exit 0;
// no command, an unknown one, or a file too many or too few prints the usage and exits 1.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./run-cli.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-cli-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

describe("possekit --help", () => {
  it("lists every command and exits 0", async () => {
    const { code, stdout } = await runCli(["--help"], { cwd });
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: possekit <command>/);
    for (const command of ["serve", "token", "migrate", "syndicate", "backup", "restore", "doctor"])
      assert.match(stdout, new RegExp(`\\n  ${command}\\s+\\S`));
  });

  for (const [command, option] of [
    ["serve", "--config PATH"],
    ["token", '--scope "create update"'],
    ["migrate", "--config PATH"],
    ["backup", "FILE [--config PATH]"],
    ["restore", "FILE [--config PATH]"],
    ["doctor", "--config PATH"],
  ] as const) {
    it(`explains possekit ${command} --help, touching nothing`, async () => {
      const { code, stdout } = await runCli([command, "--help"], { cwd });
      assert.equal(code, 0);
      assert.match(stdout, new RegExp(`^Usage: possekit ${command} `));
      assert.ok(stdout.includes(option), stdout);
    });
  }

  it("prints the usage and exits 1 without a command, for an unknown one, and for an unknown option", async () => {
    const none = await runCli([], { cwd });
    assert.equal(none.code, 1);
    assert.match(none.stdout, /Usage: possekit <command>/);
    const unknown = await runCli(["deploy"], { cwd });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown command "deploy"/);
    const option = await runCli(["token", "--scopes", "create"], { cwd });
    assert.equal(option.code, 1);
    assert.match(option.stderr, /--scopes/);
    assert.match(option.stderr, /Usage: possekit token/);
  });

  it("asks backup and restore for one file, and the other commands for none", async () => {
    for (const args of [["backup"], ["restore", "a", "b"]]) {
      const missing = await runCli(args, { cwd });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^Name one file\n\nUsage: possekit /);
    }
    const stray = await runCli(["doctor", "now"], { cwd });
    assert.equal(stray.code, 1);
    assert.match(stray.stderr, /Unexpected argument 'now'/);
  });
});
