// Decision 0045: `possekit token --days 3000000` (or such a tokenLifetimeDays) made a token whose
// expiry PostgreSQL cannot store: every use of it was a 500. Both options are bounded, each refusal one
// line naming the option and the largest value; a token signed with such a lifetime before is a 401.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { MAX_TOKEN_LIFETIME_DAYS, TokenSigner } from "../../src/server/auth/token-signer.ts";
import { ConfigError, loadConfig } from "../../src/server/config/load.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { configFolder } from "../server/start-host.ts";
import { runCli } from "./run-cli.ts";

describe("token lifetimes are bounded", () => {
  const folder = configFolder(() => ({ application: { port: 0, database: false } }));
  after(() => folder.remove());

  it("refuses possekit token --days over the largest, in one line naming --days and the largest", async () => {
    const { code, stdout, stderr } = await runCli(["token", "--days", "3000000"], {
      cwd: folder.dir,
      env: folder.env,
    });
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, new RegExp(`--days .*${MAX_TOKEN_LIFETIME_DAYS}`));
  });

  it("refuses application.tokenLifetimeDays over the largest, in one line naming it and the largest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "possekit-lifetime-"));
    try {
      writeFileSync(
        join(dir, "possekit.config.json"),
        JSON.stringify({ application: { tokenLifetimeDays: 3_000_000 } }),
      );
      let problems: string[] = [];
      try {
        loadConfig({
          cwd: dir,
          env: { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "a test password" },
        });
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        problems = error.problems;
      }
      assert.equal(problems.length, 1, problems.join("\n"));
      assert.match(
        problems[0] ?? "",
        new RegExp(`^application\\.tokenLifetimeDays: .*${MAX_TOKEN_LIFETIME_DAYS}`),
      );
      // `possekit token` reads the same file: refused the same way, never a token.
      const cli = await runCli(["token"], { cwd: dir, env: { SECRET: "a-test-secret-of-32-characters.." } });
      assert.equal(cli.code, 1);
      assert.equal(cli.stdout, "");
      assert.match(cli.stderr, /tokenLifetimeDays/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const engine of engines) {
  describe(`a token signed with a lifetime over the largest (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ engine });
    });
    after(() => server.close());

    it("is refused with 401, never a 500", async () => {
      const { secret } = server.host.hostConfig.secrets;
      const signer = new TokenSigner(secret, server.host.publication.me);
      await assert.rejects(
        signer.issue({ scope: ["create"], clientId: "old", lifetimeDays: MAX_TOKEN_LIFETIME_DAYS + 1 }),
        /lifetimeDays/,
        "the signer refuses such a lifetime",
      );
      // As an earlier version signed it: HS256 with SECRET, expiring 3,000,000 days on.
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const iat = Math.floor(Date.now() / 1000);
      const input = `${part({ alg: "HS256", typ: "JWT" })}.${part({
        me: server.host.publication.me,
        scope: "create",
        client_id: "old",
        jti: "from-an-earlier-version",
        iat,
        exp: iat + 3_000_000 * 86_400,
        aud: "access",
      })}`;
      const forged = `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
      const response = await fetch(`${server.url}/micropub?q=config`, {
        headers: { authorization: `Bearer ${forged}` },
      });
      assert.equal(response.status, 401);
    });
  });
}
