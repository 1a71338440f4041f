// `possekit token --scope "create update"` (decision 0002) prints a JWT signed with SECRET that carries
// me, scope, client_id, iat and exp, and that a running `possekit serve` accepts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { configFolder, pathFrom, TEST_PLUGIN_FILE } from "../server/start-host.ts";
import { runCli, type Serving, serve } from "./run-cli.ts";

describe("possekit token", () => {
  const folder = configFolder((dir) => ({
    application: { port: 0, database: false },
    plugins: [pathFrom(dir, TEST_PLUGIN_FILE)],
  }));
  let server: Serving;
  before(async () => {
    server = await serve([], { cwd: folder.dir, env: folder.env });
  });
  after(async () => {
    await server.stop();
    folder.remove();
  });

  it("prints one HS256 JWT with me, scope, client_id, iat and exp", async () => {
    const { code, stdout, stderr } = await runCli(["token", "--scope", "create update"], {
      cwd: folder.dir,
      env: folder.env,
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = stdout.trim();
    assert.equal(decodeProtectedHeader(token).alg, "HS256");
    const claims = decodeJwt(token);
    assert.equal(claims.scope, "create update");
    assert.equal(claims.client_id, "possekit-cli");
    assert.equal(claims.me, "http://localhost:0/");
    assert.equal(Math.round(((claims.exp ?? 0) - (claims.iat ?? 0)) / 86_400), 90);
  });

  it("prints a token the running server accepts, with exactly the scopes asked for", async () => {
    const { stdout } = await runCli(["token", "--scope", "create update", "--days", "2"], {
      cwd: folder.dir,
      env: folder.env,
    });
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { authorization: `Bearer ${stdout.trim()}` },
    });
    assert.equal(response.status, 200);
    const { auth } = await response.json();
    assert.equal(auth.method, "bearer");
    assert.deepEqual(auth.scope, ["create", "update"]);
    assert.equal(auth.clientId, "possekit-cli");
  });

  it("prints a token the server refuses when SECRET differs", async () => {
    const { stdout } = await runCli(["token"], {
      cwd: folder.dir,
      env: { ...folder.env, SECRET: "another-secret-of-32-characters." },
    });
    const response = await fetch(`${server.url}/test-mount/whoami`, {
      headers: { authorization: `Bearer ${stdout.trim()}` },
    });
    assert.equal(response.status, 401);
  });

  it("refuses --days that is not a whole number of days", async () => {
    const { code, stdout, stderr } = await runCli(["token", "--days", "0.5"], {
      cwd: folder.dir,
      env: folder.env,
    });
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(stderr, /--days must be a whole number/);
  });
});
