// `possekit token` reads its three settings without the config schema (decision 0029: zod alone costs
// more than the command's 150 ms). Its token is only any use if the server reads the same SECRET,
// {me} and lifetime, so each config here goes through both readers; anything unusual goes to the
// full loader, which explains the mistake as `serve` does.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { loadConfig } from "../../src/server/config/load.ts";
import { readTokenSettings } from "../../src/server/config/token-settings.ts";
import { runCli } from "./run-cli.ts";

const root = mkdtempSync(join(tmpdir(), "possekit-token-settings-"));
after(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
function folderWith(config: unknown): string {
  count += 1;
  const dir = join(root, `config-${count}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (config !== undefined) writeFileSync(join(dir, "possekit.config.json"), JSON.stringify(config));
  return dir;
}

const SECRET = "a-secret-for-the-settings-test-0123";

describe("possekit token reads the settings the server reads", () => {
  for (const [name, config, env] of [
    ["no config file, no SECRET (the kept one)", undefined, {}],
    ["a port, no url", { application: { port: 8123 } }, { SECRET }],
    ["a url with trailing slashes", { application: { url: "https://posse.example//" } }, { SECRET }],
    [
      "me, a data folder and a lifetime",
      {
        application: { url: "http://127.0.0.1:4000", dataDir: "elsewhere", tokenLifetimeDays: 7 },
        publication: { me: "https://me.example/blog/" },
      },
      {},
    ],
  ] as const) {
    it(`the same SECRET, me and lifetime: ${name}`, () => {
      const cwd = folderWith(config);
      const fast = readTokenSettings({ cwd, env: { ...env } });
      assert.ok(fast, "a plain config takes the quick way");
      const full = loadConfig({ cwd, env: { ...env, PASSWORD: "pw" } });
      assert.deepEqual(fast, {
        url: full.application.url,
        secret: full.secrets.secret,
        me: full.publication.me,
        tokenLifetimeDays: full.application.tokenLifetimeDays,
      });
    });
  }

  for (const [name, config, env] of [
    ["a url that is not one", { application: { url: "posse.example" } }, { SECRET }],
    ["a lifetime of zero", { application: { tokenLifetimeDays: 0 } }, { SECRET }],
    ["production", {}, { SECRET, NODE_ENV: "production" }],
    ["a short SECRET", {}, { SECRET: "short" }],
    ["a file that is not JSON", "{", { SECRET }],
  ] as const) {
    it(`leaves it to the full loader: ${name}`, () => {
      const cwd = folderWith(config);
      if (typeof config === "string") writeFileSync(join(cwd, "possekit.config.json"), config);
      assert.equal(readTokenSettings({ cwd, env: { ...env } }), null);
    });
  }

  it("a mistake in the config is explained in one line naming the option, as serve does", async () => {
    const cwd = folderWith({ application: { tokenLifetimeDays: 0 } });
    const { code, stdout, stderr } = await runCli(["token"], { cwd, env: { SECRET } });
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(stderr, /application\.tokenLifetimeDays/);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  });

  it("reads PORT and --port as the server does, and names on stderr the server the token is for", async () => {
    const cwd = folderWith({ application: { tokenLifetimeDays: 7 } });
    for (const [args, env, server] of [
      [[], { SECRET }, "http://localhost:3000"],
      [[], { SECRET, PORT: "8123" }, "http://localhost:8123"],
      [["--port", "8124"], { SECRET }, "http://localhost:8124"],
      [["--port", "8125"], { SECRET, PORT: "8123" }, "http://localhost:8125"],
    ] as const) {
      const { code, stdout, stderr } = await runCli(["token", ...args], { cwd, env: { ...env } });
      assert.equal(code, 0, stderr);
      assert.equal(decodeJwt(stdout.trim()).me, `${server}/`, `${args} ${JSON.stringify(env)}`);
      assert.equal(stderr.trim().split("\n").length, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          `^Token for the server at ${server} \\(publication ${server}/, scope "create update", 7 days\\)`,
        ),
      );
    }
  });
});
