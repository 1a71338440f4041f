// `possekit connect mastodon --instance …` for a server no browser can reach: it prints the
// instance's authorize address (PKCE S256, the out-of-band redirect), reads the code the instance
// shows once Authorize is pressed, and stores the account as the page does (token and app sealed);
// the next start has it as a target. Neither what it prints nor the database holds the token or the
// client secret. Without a pasted code nothing is connected.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { builtInPlugins } from "../../src/built-in-plugins.ts";
import { loadConfig } from "../../src/server/config/load.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { codeShownOnAuthorize } from "../helpers/mastodon-authorize.ts";
import { talkTo } from "./run-cli.ts";

describe("possekit connect mastodon (out of band)", () => {
  let folder = "";
  let sandbox: MastodonSandbox;
  const env = { SECRET: "a-secret-of-the-test-that-is-long-enough", PASSWORD: "a password of the test" };

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "possekit-connect-"));
    sandbox = await startMastodonSandbox({ accessToken: "configured-unused", user: "alice" });
    writeFileSync(
      join(folder, "possekit.config.json"),
      JSON.stringify({
        application: { dataDir: join(folder, "data") },
        plugins: ["@possekit/endpoint-syndicate"],
        fetch: { allowPrivate: true },
      }),
    );
  });
  after(async () => {
    await sandbox?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("prints the authorize address, reads the pasted code and stores the account", async () => {
    const command = talkTo(["connect", "mastodon", "--instance", sandbox.url], { cwd: folder, env });
    const shown = await command.printed(/paste the code it shows here: $/);
    const address = /^ {4}(\S+)$/m.exec(shown)?.[1];
    assert.ok(address, shown);
    const url = new URL(address);
    assert.equal(url.origin, sandbox.url);
    assert.equal(url.searchParams.get("redirect_uri"), "urn:ietf:wg:oauth:2.0:oob");
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    command.type(await codeShownOnAuthorize(url));
    const finished = await command.exited;
    assert.equal(finished.code, 0, finished.stderr);
    assert.match(finished.stdout, new RegExp(`Connected as @alice@${new URL(sandbox.url).host}\\n$`));

    const issued = sandbox.tokens.find((token) => token.user === "alice");
    const app = sandbox.apps[0];
    assert.ok(issued && app);
    for (const secret of [issued.token, app.clientSecret])
      assert.ok(!`${finished.stdout}${finished.stderr}`.includes(secret), "a secret was printed");

    // The next start has the account as a target, its secrets sealed in the database.
    const host = new Host(loadConfig({ cwd: folder, env }), {
      logger: createLogger("error"),
      builtInPlugins,
    });
    try {
      await host.prepare();
      const [account] = (await host.accounts?.list()) ?? [];
      assert.equal(account?.uid, `${sandbox.url}/@alice`);
      assert.ok(host.syndicators.some((syndicator) => syndicator.info.uid === account?.uid));
      const database = host.database;
      assert.ok(database);
      const dump = JSON.stringify([
        (await database.query("SELECT * FROM connected_accounts")).rows,
        (await database.query("SELECT * FROM mastodon_oauth_apps")).rows,
      ]);
      for (const secret of [issued.token, app.clientSecret, app.clientId]) assert.ok(!dump.includes(secret));
    } finally {
      await host.stop();
    }
  });

  it("connects nothing when no code is pasted, and says so", async () => {
    const userTokens = () => sandbox.tokens.filter((token) => token.user !== null).length;
    const tokensBefore = userTokens();
    const command = talkTo(["connect", "mastodon", "--instance", sandbox.url], { cwd: folder, env });
    await command.printed(/paste the code it shows here: $/);
    command.endInput();
    const finished = await command.exited;
    assert.equal(finished.code, 1);
    assert.match(finished.stderr, /No code was pasted: nothing was connected/);
    assert.equal(userTokens(), tokensBefore);
  });

  it("says what to type for an instance it cannot use, in one line", async () => {
    const command = talkTo(["connect", "mastodon", "--instance", "not an instance"], { cwd: folder, env });
    const finished = await command.exited;
    assert.equal(finished.code, 1);
    assert.match(
      finished.stderr,
      /^"not an instance" is not an instance: type its name \(mastodon\.social\)/,
    );
  });
});
