// `possekit doctor`'s checks on a configuration ready for production (the real server behind https
// on 127.0.0.1, a target on the sandbox Mastodon, the server's own feed, the keys backed up): no
// problem. Then each mistake alone, and each gives exactly one line, naming the option and what to
// write instead.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { line } from "../../src/doctor/problem.ts";
import { recordBackup } from "../../src/server/backup/backup-record.ts";
import { keyFilesIn } from "../../src/server/backup/kept-files.ts";
import { ConfigError, loadConfig } from "../../src/server/config/load.ts";
import { fetchTrusting, type SelfSigned, selfSignedCertificate } from "../helpers/self-signed.ts";
import { freePort, startTestServer, type TestServer } from "../helpers/server.ts";

const ENDPOINT = "@possekit/endpoint-syndicate";
const MASTODON = "@possekit/syndicator-mastodon";

describe("possekit doctor", () => {
  let server: TestServer | undefined;
  let tls: Server | undefined;
  let tlsPort = 0;
  let certificate: SelfSigned | undefined;
  let mastodon: MastodonSandbox | undefined;
  const folder = mkdtempSync(join(tmpdir(), "possekit-doctor-"));
  const dataDir = join(folder, "data");
  const goodEnv = () => ({
    NODE_ENV: "production",
    SECRET: randomBytes(30).toString("base64url"),
    PASSWORD: "a long enough password",
    WEBHOOK_SECRET: randomBytes(30).toString("base64url"),
  });
  const goodConfig = (): Record<string, unknown> => ({
    application: { url: `https://127.0.0.1:${tlsPort}`, dataDir, trustProxy: 1 },
    fetch: { allowPrivate: true },
    plugins: [ENDPOINT, MASTODON],
    [ENDPOINT]: {
      feeds: [{ url: `${server?.url}/feed.xml`, targets: [`${mastodon?.url}/@${mastodon?.user}`] }],
    },
    [MASTODON]: { url: mastodon?.url, user: mastodon?.user, accessToken: mastodon?.accessToken },
  });

  const doctor = async (
    change: {
      config?: (config: Record<string, unknown>) => void;
      env?: Record<string, string | undefined>;
    } = {},
    now = Date.now,
  ) => {
    const config = goodConfig();
    change.config?.(config);
    const env = Object.fromEntries(
      Object.entries({ ...goodEnv(), ...change.env }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    const loaded = loadConfig({ config, env, cwd: folder, makeSecrets: false });
    const problems = await runDoctor(loaded, {
      env,
      now,
      timeoutMs: 10_000,
      fetch: fetchTrusting(certificate?.cert ?? ""),
    });
    return problems.map(line);
  };

  /** Exactly one line, starting with the option. */
  const one = (lines: string[], option: string, says: RegExp) => {
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.ok(lines[0]?.startsWith(`${option}: `), lines[0]);
    assert.match(lines[0] as string, says);
    assert.match(lines[0] as string, / — \S/, "says what to do instead");
  };

  before(async () => {
    mastodon = await startMastodonSandbox({ accessToken: randomBytes(16).toString("hex") });
    server = await startTestServer();
    certificate = selfSignedCertificate();
    // TLS in front of the real server, as a reverse proxy terminates it.
    const upstream = new URL(server.url);
    tls = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    tlsPort = await freePort();
    await new Promise<void>((resolve) => tls?.listen(tlsPort, "127.0.0.1", resolve));
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, "account-secrets-key"), "the accounts' key\n", { mode: 0o600 });
    recordBackup(dataDir, new Date(), keyFilesIn(dataDir));
  });

  after(async () => {
    await new Promise((resolve) => tls?.close(resolve));
    await server?.close();
    await mastodon?.close();
    rmSync(folder, { recursive: true, force: true });
    if (certificate) rmSync(certificate.folder, { recursive: true, force: true });
  });

  it("finds nothing wrong with a configuration ready for production", async () => {
    assert.deepEqual(await doctor(), []);
  });

  it("application.url: not https, not set, or not reaching the server", async () => {
    one(
      await doctor({ config: (c) => Object.assign(c.application as object, { url: server?.url }) }),
      "application.url",
      /is not https .* write the https URL instead/,
    );
    one(
      await doctor({ config: (c) => delete (c.application as Record<string, unknown>).url }),
      "application.url",
      /not set, so services are told http:\/\/localhost:3000/,
    );
    const closed = await freePort();
    one(
      await doctor({
        config: (c) => Object.assign(c.application as object, { url: `https://127.0.0.1:${closed}` }),
      }),
      "application.url",
      /cannot be reached from here \(ECONNREFUSED\)/,
    );
  });

  it("NODE_ENV not production; SECRET, PASSWORD and WEBHOOK_SECRET missing or weak", async () => {
    one(await doctor({ env: { NODE_ENV: undefined } }), "NODE_ENV", /not set, .* set NODE_ENV=production/);
    one(await doctor({ env: { NODE_ENV: "development" } }), "NODE_ENV", /is development/);
    // In production a missing SECRET stops the configuration itself, before any check, naming it.
    await assert.rejects(doctor({ env: { SECRET: undefined } }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.problems, ["SECRET: must be set in production (a long random string)"]);
      return true;
    });
    const development = await doctor({ env: { SECRET: undefined, NODE_ENV: "development" } });
    assert.equal(development.length, 2, development.join("\n"));
    assert.match(development[1] as string, /^SECRET: not set.* set SECRET to a long random string/);
    one(await doctor({ env: { SECRET: "ab".repeat(20) } }), "SECRET", /weak \(only 2 different characters\)/);
    one(await doctor({ env: { SECRET: "Short-But-16-chars" } }), "SECRET", /weak \(only 18 characters\)/);
    one(await doctor({ env: { PASSWORD: "hunter2hunt" } }), "PASSWORD", /weak \(only 11 characters\)/);
    one(
      await doctor({ env: { WEBHOOK_SECRET: undefined } }),
      "WEBHOOK_SECRET",
      /not set, so no deploy webhook/,
    );
    one(await doctor({ env: { WEBHOOK_SECRET: "x".repeat(40) } }), "WEBHOOK_SECRET", /weak/);
  });

  it("a key the last backup does not hold, and a data folder others can read", async () => {
    const key = join(dataDir, "account-secrets-key");
    writeFileSync(key, "a new key\n", { mode: 0o600 });
    one(await doctor(), key, /changed since the last backup .* run possekit backup FILE/);
    rmSync(join(dataDir, "backups.json"));
    one(await doctor(), key, /is in no backup/);
    recordBackup(dataDir, new Date(), keyFilesIn(dataDir));

    chmodSync(dataDir, 0o755);
    one(await doctor(), "application.dataDir", /can be read by other users \(mode 755\) — run chmod 700/);
    chmodSync(dataDir, 0o700);
    chmodSync(key, 0o644);
    one(await doctor(), key, /mode 644\) — run chmod 600/);
    chmodSync(key, 0o600);
  });

  it("application.trustProxy that lets a client choose its own address, or counts every client as the proxy", async () => {
    const application = (change: Record<string, unknown>) => ({
      config: (c: Record<string, unknown>) => Object.assign(c.application as object, change),
    });
    one(
      await doctor(application({ host: "0.0.0.0" })),
      "application.trustProxy",
      /application\.host is 0\.0\.0\.0/,
    );
    one(
      await doctor(application({ trustProxy: ["0.0.0.0/0"] })),
      "application.trustProxy",
      /0\.0\.0\.0\/0 holds the clients/,
    );
    one(
      await doctor(application({ trustProxy: false })),
      "application.trustProxy",
      /every client counts as the proxy .* write 1/,
    );
  });

  it("a target that refuses its credentials, and a feed that is gone", async () => {
    one(
      await doctor({ config: (c) => Object.assign(c[MASTODON] as object, { accessToken: "revoked" }) }),
      `"${MASTODON}".accessToken`,
      /refuses the credentials/,
    );
    one(
      await doctor({
        config: (c) => {
          c[ENDPOINT] = {
            feeds: [{ url: `${server?.url}/gone.xml`, targets: [`${mastodon?.url}/@${mastodon?.user}`] }],
          };
        },
      }),
      `${ENDPOINT}.feeds.0.url`,
      /gone\.xml answers 404/,
    );
  });

  it("clock: far from the servers' Date", async () => {
    one(
      await doctor({}, () => Date.now() + 10 * 60_000),
      "clock",
      /10 minutes ahead of https:.*timedatectl set-ntp true/,
    );
    one(await doctor({}, () => Date.now() - 3 * 60_000), "clock", /3 minutes behind/);
  });
});
