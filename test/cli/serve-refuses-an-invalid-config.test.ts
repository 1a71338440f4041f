// `possekit serve --config bad.json` (decision 0005, decision 0005): an invalid file stops the start, exiting
// non-zero with one list: the file, one line per problem naming the field and what is wrong, "did
// you mean" for a misspelt key, line and column for broken JSON; plug-ins' options and a busy port
// are in the same list. Never a stack trace. The command runs here for real in the cases only a
// process shows (the exit code and stderr, a busy port, a warning while it starts); the other
// mistakes are checked in process: src/serve-config-mistakes-checked-in-process.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
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
    assert.doesNotMatch(stderr, /^ {4}at /m, "no stack trace");
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines[0], `The configuration in ${join(cwd, "bad.json")} is not valid:`);
    const problems = lines.slice(1);
    assert.equal(problems.length, 3, stderr);
    assert.ok(problems.some((line) => line.startsWith("  - application.port: ")));
    assert.ok(
      problems.some((line) => line.startsWith("  - application.url: must be an absolute http(s) URL")),
    );
    assert.ok(problems.some((line) => line.startsWith("  - publication.timezone: ")));
  });

  const SECRETS = { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "pw" };
  const serveWith = async (config: unknown | string, env: Record<string, string> = {}) => {
    const text = typeof config === "string" ? config : JSON.stringify(config, null, 2);
    writeFileSync(join(cwd, "mistake.json"), text);
    const result = await runCli(["serve", "--config", "mistake.json"], { cwd, env: { ...SECRETS, ...env } });
    assert.doesNotMatch(result.stderr, /^ {4}at /m, "no stack trace");
    return result;
  };

  it("says which port is taken and how to choose another", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((listening) => blocker.listen(0, "127.0.0.1", listening));
    const address = blocker.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      const { code, stderr } = await serveWith({ plugins: [], application: { port, database: false } });
      assert.equal(code, 1);
      assert.match(
        stderr,
        new RegExp(
          `- application\\.port: ${port} is in use by another program on 127\\.0\\.0\\.1; stop it, or choose a free port with PORT=${port + 1}`,
        ),
      );
    } finally {
      blocker.close();
    }
  });

  it("warns, and starts, when options name a plug-in that is not in plugins", async () => {
    writeFileSync(
      join(cwd, "warned.json"),
      JSON.stringify({
        plugins: [],
        application: { port: 0, database: false },
        "@possekit/syndicator-mastodon": {},
      }),
    );
    const child = await import("node:child_process");
    const { cleanEnv } = await import("./run-cli.ts");
    const { TYPESCRIPT_HOOKS } = await import("../helpers/typescript.ts");
    const bin = join(import.meta.dirname, "../../bin/possekit.js");
    const server = child.spawn(
      process.execPath,
      [...TYPESCRIPT_HOOKS, bin, "serve", "--config", "warned.json"],
      {
        cwd,
        env: cleanEnv(SECRETS),
      },
    );
    let output = "";
    await new Promise<void>((started, failed) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (/possekit is running at/.test(output)) started();
      };
      server.stdout.on("data", read);
      server.stderr.on("data", read);
      server.once("exit", (code) => failed(new Error(`exited ${code}: ${output}`)));
    });
    server.kill("SIGTERM");
    assert.match(
      output,
      /@possekit\/syndicator-mastodon: options for a plug-in not in plugins, so they are not used/,
    );
  });
});
