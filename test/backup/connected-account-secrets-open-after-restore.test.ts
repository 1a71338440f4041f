// A Mastodon account connected on the Accounts page (a pasted token, sealed with the accounts' key),
// a backup taken with `possekit backup` while the server runs, then the disaster: the server stops
// and its data folder is gone. Restored into a fresh folder, the new server has the account, and its
// token opens: a new post is copied to the sandbox by that account, with the token the sandbox
// checks. With the key in the environment (ACCOUNT_SECRETS_KEY) the backup says it does not hold
// it; restored without it, the account shows as needing reconnecting and the server says, in one
// line naming ACCOUNT_SECRETS_KEY, what is missing; with the key set again the same post goes out.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../cli/run-cli.ts";
import { postConnectForm } from "../helpers/accounts-form.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { createPost, ENDPOINT_PACKAGE, type Sandbox, startSandbox, until } from "../scale/cluster.ts";

describe("a connected account's secrets after a backup is restored", () => {
  let sandbox: Sandbox | undefined;
  const servers: ChildServer[] = [];
  const folder = mkdtempSync(join(tmpdir(), "possekit-backup-accounts-"));
  const secret = randomBytes(24).toString("base64url");
  const password = randomBytes(9).toString("base64url");

  before(async () => {
    sandbox = await startSandbox();
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await sandbox?.mastodon.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** A config file naming `dataDir`; no Mastodon target in it: the account comes from the page. */
  const configFile = (name: string): { dataDir: string; file: string; config: Record<string, unknown> } => {
    const dataDir = join(folder, name);
    const file = join(folder, `${name}.json`);
    writeFileSync(file, JSON.stringify({ application: { dataDir } }));
    return {
      dataDir,
      file,
      config: {
        application: { dataDir },
        plugins: [ENDPOINT_PACKAGE],
        // The sandbox listens on 127.0.0.1.
        fetch: { allowPrivate: true },
      },
    };
  };
  const start = async (config: Record<string, unknown>, env: Record<string, string> = {}) => {
    const server = await startChildServer({ config, env, secret, password });
    servers.push(server);
    return server;
  };
  const accountsPage = async (server: ChildServer, session: { cookie: string }) => {
    const response = await fetch(`${server.url}/syndicate/accounts`, {
      headers: { cookie: session.cookie, accept: "text/html" },
    });
    assert.equal(response.status, 200);
    return response.text();
  };
  /** Connects the sandbox account with a pasted token, as the Accounts page's form does. */
  const connect = async (server: ChildServer) => {
    const mastodon = (sandbox as Sandbox).mastodon;
    const session = await server.signIn();
    const response = await postConnectForm(server.url, session, "mastodon", {
      instance: mastodon.url,
      accessToken: mastodon.accessToken,
    });
    assert.equal(response.status, 303, await response.text());
    const page = await accountsPage(server, session);
    assert.match(page, /data-account-state="connected"/);
  };
  const statusPosts = () =>
    (sandbox as Sandbox).mastodon.requests.filter(
      (request) => request.method === "POST" && request.path === "/api/v1/statuses",
    );
  /** A new post for the connected account, sent by a batch; what the sandbox got for it. */
  const post = async (server: ChildServer, text: string) => {
    const token = await server.token("create update");
    const before = statusPosts().length;
    await createPost(server, token, { content: text, targets: [(sandbox as Sandbox).uid] });
    const response = await fetch(`${server.url}/syndicate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200, await response.clone().text());
    return {
      summary: (await response.json()) as { summary: { syndicated: number } },
      requests: statusPosts().slice(before),
    };
  };
  const backup = async (config: { file: string }, name: string, env: Record<string, string> = {}) => {
    const path = join(folder, name);
    const taken = await runCli(["backup", path, "--config", config.file], { cwd: folder, env });
    assert.equal(taken.code, 0, taken.stderr);
    return { path, stdout: taken.stdout };
  };
  const restore = async (path: string, config: { file: string }) => {
    const restoring = await runCli(["restore", path, "--config", config.file], { cwd: folder });
    assert.equal(restoring.code, 0, restoring.stderr);
    return restoring.stdout;
  };

  it("with the key in the data folder: the account comes back and its token opens", async () => {
    const original = configFile("file-key-original");
    const restored = configFile("file-key-restored");
    const doomed = await start(original.config);
    await connect(doomed);
    assert.equal(existsSync(join(original.dataDir, "account-secrets-key")), true);

    const taken = await backup(original, "file-key.tar.gz");
    assert.match(taken.stdout, /1 key file: account-secrets-key;/);
    assert.doesNotMatch(taken.stdout, /ACCOUNT_SECRETS_KEY/, "the key is in the file, nothing to keep apart");

    assert.equal((await doomed.kill("SIGTERM")).code, 0, doomed.output());
    rmSync(original.dataDir, { recursive: true, force: true });
    assert.doesNotMatch(await restore(taken.path, restored), /ACCOUNT_SECRETS_KEY/);

    const again = await start(restored.config);
    const page = await accountsPage(again, await again.signIn());
    assert.match(page, /data-account-state="connected"/, "the account came back, not needing reconnecting");
    assert.doesNotMatch(page, /needs reconnecting/);

    const sent = await post(again, "Sent by the restored account");
    assert.equal(sent.summary.summary.syndicated, 1, JSON.stringify(sent.summary) + again.output());
    assert.deepEqual(
      sent.requests.map((request) => request.authorized),
      [true],
      "one status, made with the token the sandbox gave (it refuses any other)",
    );
    assert.equal(
      (sandbox as Sandbox).mastodon.statuses.at(-1)?.text.startsWith("Sent by the restored account"),
      true,
    );
  });

  it("with the key in the environment: the backup says so, a restore without it says what is missing, with it the token opens", async () => {
    const key = randomBytes(32).toString("base64");
    const original = configFile("env-key-original");
    const restored = configFile("env-key-restored");
    const doomed = await start(original.config, { ACCOUNT_SECRETS_KEY: key });
    await connect(doomed);
    assert.equal(existsSync(join(original.dataDir, "account-secrets-key")), false, "the environment's key");

    // Run as a cron job would: without the service's environment; the server says where its key is.
    const taken = await backup(original, "env-key.tar.gz");
    assert.doesNotMatch(taken.stdout, /account-secrets-key/);
    assert.match(
      taken.stdout,
      /Not in the backup, as the environment gives them: [^\n]*ACCOUNT_SECRETS_KEY[^\n]*without ACCOUNT_SECRETS_KEY the connected accounts' secrets cannot be opened/,
    );

    assert.equal((await doomed.kill("SIGTERM")).code, 0, doomed.output());
    rmSync(original.dataDir, { recursive: true, force: true });
    assert.match(
      await restore(taken.path, restored),
      /^The backed-up server took ACCOUNT_SECRETS_KEY from its environment, so it is not in the backup: start the restored server with the same ACCOUNT_SECRETS_KEY/m,
    );

    // Restored, and started without the key.
    const keyless = await start(restored.config);
    await until("the server said why the account is not used", () =>
      /Connected account .* could not be registered/.test(keyless.output()),
    );
    const warning = keyless
      .output()
      .split("\n")
      .filter((line) => line.includes("could not be registered"));
    assert.equal(warning.length, 1, keyless.output());
    assert.match(warning[0] as string, /ACCOUNT_SECRETS_KEY/);
    assert.doesNotMatch(keyless.output(), /^\s+at /m, "no stack trace");
    const page = await accountsPage(keyless, await keyless.signIn());
    assert.match(page, /data-account-state="needsReconnect"/);
    assert.match(page, /needs reconnecting/);
    assert.match(page, /ACCOUNT_SECRETS_KEY/, "the page names the variable to set");
    const unsent = await post(keyless, "Held until the key is back");
    assert.deepEqual(unsent.requests, [], "nothing is sent with a secret that does not open");
    assert.equal((await keyless.kill("SIGTERM")).code, 0, keyless.output());

    // The key given again: the same folder, the account opens, the held post goes out.
    const keyed = await start(restored.config, { ACCOUNT_SECRETS_KEY: key });
    const session = await keyed.signIn();
    const again = await accountsPage(keyed, session);
    assert.match(again, /data-account-state="connected"/, "connected again once the key is given");
    assert.doesNotMatch(again, /needs reconnecting/);
    const sent = await post(keyed, "Sent once the key is back");
    assert.ok(sent.requests.length >= 1, keyed.output());
    assert.ok(
      sent.requests.every((request) => request.authorized),
      "every status made with the token the sandbox gave",
    );
    assert.equal(
      (sandbox as Sandbox).mastodon.statuses.at(-1)?.text.startsWith("Sent once the key is back"),
      true,
    );
  });
});
