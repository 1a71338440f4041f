// The server behind Debian's nginx with https on 127.0.0.1, running deploy/nginx/possekit.conf
// itself (ports and certificate paths replaced), as docs/deploying.md tells a self-hoster to:
// sign-in with a Secure cookie; "Syndicate all" streamed, its first result arriving while the
// second post is still being sent (nginx does not hold the stream back); a body over nginx's
// default limit answered by possekit's own 413; a signed deploy webhook;
// IndieAuth's redirect back to a client, naming the https issuer, and its code exchanged; rate
// limits that count each client's own address, which a forged X-Forwarded-For does not change;
// the backup route unreachable through the proxy; `possekit backup` beside it; and `possekit
// doctor` exiting 0 on this configuration and 1, with one line, when trustProxy is missing.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { runCli } from "../cli/run-cli.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { fetchTrusting, type SelfSigned, selfSignedCertificate } from "../helpers/self-signed.ts";
import { freePort } from "../helpers/server.ts";
import { authorizationUrl, type ClientApp, pkcePair, startClientApp } from "../indieauth/indieauth-client.ts";
import {
  createPosts,
  ENDPOINT_PACKAGE,
  MASTODON_PACKAGE,
  type Sandbox,
  startSandbox,
  until,
} from "../scale/cluster.ts";

const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";

/** Replaces `from` in `text`, which must hold it exactly once: a changed site file fails here. */
function replaceOnce(text: string, from: string, to: string): string {
  const parts = text.split(from);
  if (parts.length !== 2) throw new Error(`deploy/nginx/possekit.conf no longer has "${from}" once`);
  return parts.join(to);
}

describe("behind Debian's nginx with https", () => {
  const folder = mkdtempSync(join(tmpdir(), "possekit-nginx-"));
  const dataDir = join(folder, "data");
  const secret = randomBytes(30).toString("base64url");
  const password = "a password long enough";
  const webhookSecret = randomBytes(30).toString("base64url");
  let certificate: SelfSigned | undefined;
  let sandbox: Sandbox | undefined;
  let client: ClientApp | undefined;
  let server: ChildServer | undefined;
  let nginx: ChildProcess | undefined;
  let nginxLog = "";
  let base = "";
  let httpPort = 0;
  let config: Record<string, unknown> = {};
  let env: Record<string, string> = {};
  let through: typeof fetch = fetch;

  before(async () => {
    assert.ok(existsSync(NGINX), `nginx is not at ${NGINX}: apt-get install nginx-light, or set NGINX_PATH`);
    certificate = selfSignedCertificate();
    through = fetchTrusting(certificate.cert);
    sandbox = await startSandbox({ latencyMs: 20 });
    client = await startClientApp();
    const httpsPort = await freePort();
    httpPort = await freePort();
    base = `https://127.0.0.1:${httpsPort}`;
    env = { MASTODON_ACCESS_TOKEN: sandbox.mastodon.accessToken, WEBHOOK_SECRET: webhookSecret };
    config = {
      application: {
        url: base,
        dataDir,
        trustProxy: 1,
        rateLimit: { signIn: 3 },
      },
      plugins: [ENDPOINT_PACKAGE, MASTODON_PACKAGE],
      // A send may take 3 s: the stream test holds one answer back until then.
      [ENDPOINT_PACKAGE]: {
        targets: { checkAtStart: false },
        schedule: { enabled: false },
        targetTimeoutMs: 3_000,
      },
      [MASTODON_PACKAGE]: { url: sandbox.mastodon.url, user: sandbox.mastodon.user },
    };
    server = await startChildServer({ config, env, secret, password });
    const serverPort = new URL(server.url).port;

    let site = readFileSync(join(PACKAGE_ROOT, "deploy/nginx/possekit.conf"), "utf8");
    site = replaceOnce(site, "server 127.0.0.1:3000;", `server 127.0.0.1:${serverPort};`);
    site = replaceOnce(site, "    listen 80;\n    listen [::]:80;", `    listen 127.0.0.1:${httpPort};`);
    site = replaceOnce(
      site,
      "    listen 443 ssl http2;\n    listen [::]:443 ssl http2;",
      `    listen 127.0.0.1:${httpsPort} ssl http2;`,
    );
    site = replaceOnce(site, "/etc/letsencrypt/live/posse.example.org/fullchain.pem", certificate.certPath);
    site = replaceOnce(site, "/etc/letsencrypt/live/posse.example.org/privkey.pem", certificate.keyPath);
    const run = join(folder, "nginx");
    writeFileSync(join(folder, "possekit.conf"), site);
    // Unprivileged ports, its own pid file, logs and temporary folders: nothing of the system's nginx.
    writeFileSync(
      join(folder, "nginx.conf"),
      `daemon off;
worker_processes 1;
pid ${run}.pid;
error_log ${run}-error.log warn;
events { worker_connections 128; }
http {
  access_log off;
  client_body_temp_path ${run}-body;
  proxy_temp_path ${run}-proxy;
  fastcgi_temp_path ${run}-fastcgi;
  uwsgi_temp_path ${run}-uwsgi;
  scgi_temp_path ${run}-scgi;
  include ${join(folder, "possekit.conf")};
}
`,
    );
    // nginx's workers run as nobody when started by root: they must reach the temporary folders.
    chmodSync(folder, 0o711);
    nginx = spawn(NGINX, ["-p", folder, "-c", join(folder, "nginx.conf"), "-e", `${run}-error.log`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    nginx.stdout?.on("data", (chunk: Buffer) => {
      nginxLog += chunk.toString();
    });
    nginx.stderr?.on("data", (chunk: Buffer) => {
      nginxLog += chunk.toString();
    });
    await until(
      "nginx answers https",
      async () =>
        (await through(`${base}/health`).then(
          (r) => r.status,
          () => 0,
        )) === 200,
      60_000,
    ).catch((error: unknown) => {
      const log = existsSync(`${run}-error.log`) ? readFileSync(`${run}-error.log`, "utf8") : "";
      throw new Error(`${(error as Error).message}\n${nginxLog}\n${log}`);
    });
  });

  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx?.once("exit", resolve));
      nginx.kill("SIGQUIT");
      await exited;
    }
    await server?.stop();
    await sandbox?.mastodon.close();
    await client?.close();
    rmSync(folder, { recursive: true, force: true });
    if (certificate) rmSync(certificate.folder, { recursive: true, force: true });
  });

  /** Signs in through the proxy; the session cookie and the page's CSRF token. */
  async function signIn(): Promise<{ cookie: string; csrf: string }> {
    const response = await through(`${base}/session/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      body: new URLSearchParams({ password }).toString(),
    });
    assert.equal(response.status, 303);
    const setCookie = response.headers.getSetCookie().find((each) => each.startsWith("possekit_session="));
    assert.ok(setCookie, "a session cookie");
    assert.match(setCookie, /;\s*Secure/i, "the cookie is Secure: the server knows it is reached over https");
    const cookie = setCookie.split(";")[0] as string;
    const page = await through(`${base}/status`, { headers: { cookie, accept: "text/html" } });
    assert.equal(page.status, 200);
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1];
    assert.ok(csrf);
    return { cookie, csrf };
  }

  it("sends plain http to https, and signs in with a Secure cookie", async () => {
    const plain = await fetch(`http://127.0.0.1:${httpPort}/session/login`, { redirect: "manual" });
    assert.equal(plain.status, 301);
    assert.match(plain.headers.get("location") ?? "", /^https:\/\/127\.0\.0\.1\/session\/login$/);
    await signIn();
  });

  it("lets a body larger than nginx's default through, so that the answer is possekit's own 413", async () => {
    const token = await (server as ChildServer).token("create");
    // 2 MB: over nginx's default client_max_body_size (1 MB), under the site's, over bodyLimit.
    const response = await through(`${base}/micropub`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ type: ["h-entry"], properties: { content: ["x".repeat(2_000_000)] } }),
    });
    assert.equal(response.status, 413);
    const text = await response.text();
    assert.ok(!text.startsWith("<"), `nginx answered itself: ${text.slice(0, 80)}`);
    assert.equal((JSON.parse(text) as { error: string }).error, "payload_too_large");
  });

  it('streams "Syndicate all" as each post is sent, and takes a signed deploy webhook', async () => {
    const mastodon = (sandbox as Sandbox).mastodon;
    const session = await signIn();
    const token = await (server as ChildServer).token("create update");
    await createPosts(server as ChildServer, token, 3, [(sandbox as Sandbox).uid], "Proxied");
    // Mastodon never answers the second post (it is not even created), so the run waits for it until
    // the send's timeout: the first post's result must come through nginx meanwhile, not at the end.
    mastodon.setBehaviour({ hangMs: Number.POSITIVE_INFINITY, hangPhase: "before", skip: 1, times: 1 });
    const results: Array<{ status: string; statuses: number }> = [];
    let ended = false;
    const done = new Promise<number>((resolve, reject) => {
      const request = httpsRequest(
        `${base}/syndicate`,
        {
          method: "POST",
          ca: certificate?.cert,
          headers: {
            cookie: session.cookie,
            "x-csrf-token": session.csrf,
            origin: base,
            accept: "text/event-stream",
          },
        },
        (response) => {
          response.setEncoding("utf8");
          let pending = "";
          response.on("data", (chunk: string) => {
            pending += chunk;
            const events = pending.split("\n\n");
            pending = events.pop() ?? "";
            for (const event of events) {
              const data = /^data: (.*)$/m.exec(event)?.[1] ?? "{}";
              if (/^event: result$/m.test(event))
                results.push({
                  status: (JSON.parse(data) as { status: string }).status,
                  statuses: mastodon.statuses.length,
                });
              if (/^event: summary$/m.test(event)) ended = true;
            }
          });
          response.on("end", () => resolve(response.statusCode ?? 0));
        },
      );
      request.on("error", reject);
      request.end();
    });
    assert.equal(await done, 200);
    assert.ok(ended, "the stream ends with its summary");
    assert.deepEqual(
      results,
      [
        { status: "syndicated", statuses: 1 },
        { status: "failed", statuses: 1 },
        { status: "syndicated", statuses: 2 },
      ],
      "each result arrived as its post was done: the first while the second was still held",
    );

    // The deploy webhook, signed as docs/webhooks.md says, at the URL the docs tell the user to give.
    await createPosts(server as ChildServer, token, 1, [(sandbox as Sandbox).uid], "Deployed");
    const body = JSON.stringify({ event: "deployed", commit: randomBytes(4).toString("hex") });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac("sha256", webhookSecret).update(`${timestamp}.${body}`).digest("hex")}`;
    const webhook = await through(`${base}/syndicate/webhook`, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        "x-webhook-timestamp": timestamp,
        "x-hub-signature-256": signature,
      },
      body,
    });
    const answer = (await webhook.json()) as { summary?: { syndicated: number } };
    assert.equal(webhook.status, 200, JSON.stringify(answer));
    assert.equal(answer.summary?.syndicated, 1, JSON.stringify(answer));
  });

  it("redirects an IndieAuth client back naming the https issuer, and its code buys a token", async () => {
    const app = client as ClientApp;
    const metadata = (await (await through(`${base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
      authorization_endpoint: string;
      token_endpoint: string;
    };
    assert.equal(metadata.issuer, `${base}/`);
    assert.equal(metadata.authorization_endpoint, `${base}/auth`);
    const session = await signIn();
    const pkce = pkcePair();
    const page = await through(
      authorizationUrl(metadata.authorization_endpoint, app, { challenge: pkce.challenge }),
      {
        headers: { cookie: session.cookie, accept: "text/html" },
      },
    );
    const html = await page.text();
    assert.equal(page.status, 200, html.slice(0, 300));
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
    const form = new URLSearchParams({ _csrf: field("_csrf"), ticket: field("ticket"), decision: "approve" });
    for (const scope of html.matchAll(/name="scope" value="([^"]+)"/g))
      form.append("scope", scope[1] as string);
    const consent = await through(`${base}/auth/consent`, {
      method: "POST",
      headers: { cookie: session.cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    assert.equal(consent.status, 303, (await consent.clone().text()).slice(0, 300));
    const back = new URL(consent.headers.get("location") ?? "");
    assert.equal(`${back.origin}${back.pathname}`, app.redirectUri);
    assert.equal(back.searchParams.get("iss"), `${base}/`);
    const exchange = await through(metadata.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code") ?? "",
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        code_verifier: pkce.verifier,
      }).toString(),
    });
    const tokens = (await exchange.json()) as { access_token?: string };
    assert.equal(exchange.status, 200, JSON.stringify(tokens));
    assert.ok(tokens.access_token);
  });

  it("counts sign-in attempts per client address, which a forged X-Forwarded-For does not change", async () => {
    const from = (localAddress: string) => fetchTrusting(certificate?.cert ?? "", { localAddress });
    const attempt = (client: typeof fetch, forged?: string) =>
      client(`${base}/session/login`, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
          ...(forged ? { "x-forwarded-for": forged } : {}),
        },
        body: new URLSearchParams({ password: "wrong" }).toString(),
      }).then((response) => response.status);
    const guesser = from("127.0.0.2");
    // Each try claims another address; nginx replaces the header with the one it sees.
    for (const forged of ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
      assert.equal(await attempt(guesser, forged), 401);
    assert.equal(await attempt(guesser, "203.0.113.9"), 429, "the fourth try from 127.0.0.2 is refused");
    assert.equal(await attempt(guesser, "127.0.0.5, 203.0.113.10"), 429);
    // Another client is not held back by the first one's tries: the proxy's own address is not what counts.
    assert.equal(await attempt(from("127.0.0.3")), 401);
  });

  it("keeps the backup route off the proxy, while possekit backup and doctor work beside it", async () => {
    const lock = JSON.parse(readFileSync(join(dataDir, "db.lock"), "utf8")) as { key: string };
    const proxied = await through(`${base}/local/backup`, {
      method: "POST",
      headers: { authorization: `Bearer ${lock.key}` },
    });
    assert.equal(proxied.status, 404, "through the proxy, even with the credential, there is no such route");

    const configPath = join(folder, "possekit.config.json");
    writeFileSync(
      configPath,
      JSON.stringify({
        ...config,
        application: {
          ...(config.application as object),
          port: Number(new URL((server as ChildServer).url).port),
        },
      }),
    );
    const backup = await runCli(["backup", join(folder, "backup.tar.gz"), "--config", configPath], {
      cwd: folder,
      env: { SECRET: secret, ACCOUNT_SECRETS_KEY: randomBytes(32).toString("base64url") },
    });
    assert.equal(backup.code, 0, backup.stderr);
    // What the environment gives is in no backup, and the command says where it must be kept: the
    // server's (SECRET, PASSWORD) and the command's own.
    assert.match(
      backup.stdout,
      /Not in the backup, as the environment gives them: SECRET, PASSWORD, ACCOUNT_SECRETS_KEY\. Keep them .* \(without ACCOUNT_SECRETS_KEY the connected accounts' secrets cannot be opened\)/,
    );

    const cliEnv = {
      ...env,
      NODE_ENV: "production",
      SECRET: secret,
      PASSWORD: password,
      // Node's fetch trusts the test's certificate as a server's trusts its CA's.
      NODE_EXTRA_CA_CERTS: certificate?.certPath ?? "",
    };
    const good = await runCli(["doctor", "--config", configPath], { cwd: folder, env: cliEnv });
    assert.equal(good.code, 0, `${good.stdout}${good.stderr}`);
    assert.match(good.stdout, /No problems found/);

    writeFileSync(
      configPath,
      JSON.stringify({ ...config, application: { ...(config.application as object), trustProxy: false } }),
    );
    const bad = await runCli(["doctor", "--config", configPath], { cwd: folder, env: cliEnv });
    assert.equal(bad.code, 1, bad.stdout);
    const lines = bad.stdout.trim().split("\n");
    assert.equal(lines.length, 2, bad.stdout);
    assert.match(lines[0] as string, /^application\.trustProxy: false .* — write 1/);
    assert.equal(lines[1], "1 problem found.");
  });
});
