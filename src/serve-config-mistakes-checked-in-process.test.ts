// What `possekit serve --config bad.json` prints for each configuration mistake (decision 0005, decision 0005),
// checked where it is decided: loadConfig and the host's start (Host.prepare, which loads the
// plug-ins and checks their options), without starting the command for each (decision 0053: a spawn
// through tsx cost seconds of CPU per case). The command prints the ConfigError's message and
// exits 1: serve-refuses-an-invalid-config.test.ts runs it for real once.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { builtInPlugins } from "./built-in-plugins.ts";
import { ConfigError, loadConfig } from "./server/config/load.ts";
import { Host } from "./server/host.ts";
import { createLogger } from "./server/logger.ts";

const cwd = mkdtempSync(join(tmpdir(), "possekit-cli-"));
after(() => rmSync(cwd, { recursive: true, force: true }));

const SECRETS = { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "pw" };

/** What serve would print for this config file (with this environment): the ConfigError's message. */
async function serveRefuses(config: unknown, env: Record<string, string> = SECRETS): Promise<string> {
  const text = typeof config === "string" ? config : JSON.stringify(config, null, 2);
  writeFileSync(join(cwd, "mistake.json"), text);
  try {
    const loaded = loadConfig({ configPath: "mistake.json", env, cwd });
    await new Host(loaded, { logger: createLogger("error"), builtInPlugins }).prepare();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    assert.doesNotMatch(error.message, /^ {4}at /m, "no stack trace");
    return error.message;
  }
  assert.fail("serve would have started");
}

describe("possekit serve's configuration check, in process", () => {
  it("names the file when --config points at nothing", () => {
    assert.throws(
      () => loadConfig({ configPath: "missing.json", env: {}, cwd }),
      (error) =>
        error instanceof ConfigError && /missing\.json: cannot be read \(ENOENT\)/.test(error.message),
    );
  });

  it("refuses production without SECRET, saying so", async () => {
    const message = await serveRefuses({ plugins: [] }, { NODE_ENV: "production", PASSWORD: "pw" });
    assert.match(message, /\n {2}- SECRET: must be set in production/);
  });

  it("names the section or option a misspelt key most likely meant", async () => {
    const message = await serveRefuses({
      plugin: ["@possekit/endpoint-syndicate"],
      application: { prot: 3 },
    });
    assert.match(message, /\n {2}- plugin: unknown section; did you mean "plugins"\?/);
    assert.match(message, /\n {2}- application\.prot: unknown option; did you mean "port"\?/);
    assert.doesNotMatch(message, /expected record/);
  });

  it("gives the line and column of broken JSON", async () => {
    const message = await serveRefuses('{\n  "application": {\n    "port": 3000,\n  }\n}\n');
    assert.match(message, /is not valid JSON: .* at line 4, column 3/);
  });

  it("lists every plug-in's option problems under the plug-in's name, in one list", async () => {
    const message = await serveRefuses({
      plugins: ["@possekit/endpoint-syndicate", "@possekit/syndicator-mastodon"],
      application: { database: false },
      "@possekit/endpoint-syndicate": { mountpath: "/x" },
      "@possekit/syndicator-mastodon": { url: "http://insecure.example", usr: "alice" },
    });
    const lines = message.split("\n");
    assert.equal(lines[0], `The configuration in ${join(cwd, "mistake.json")} is not valid:`);
    assert.deepEqual(
      lines.slice(1).sort(),
      [
        '  - @possekit/endpoint-syndicate.mountpath: unknown option; did you mean "mountPath"?',
        "  - @possekit/syndicator-mastodon.accessToken: is required (or set MASTODON_ACCESS_TOKEN)",
        "  - @possekit/syndicator-mastodon.url: must be an absolute https URL",
        "  - @possekit/syndicator-mastodon.user: is required",
        '  - @possekit/syndicator-mastodon.usr: unknown option; did you mean "user"?',
      ].sort(),
    );
  });
});
