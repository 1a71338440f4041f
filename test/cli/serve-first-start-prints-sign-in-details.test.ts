// `possekit serve` on a fresh machine (decision 0005): no config file, no SECRET, no PASSWORD: it runs on
// defaults with the embedded database under ./data, and prints the sign-in details once.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Serving, serve } from "./run-cli.ts";

describe("possekit serve in an empty folder", () => {
  const cwd = mkdtempSync(join(tmpdir(), "possekit-fresh-"));
  let server: Serving;
  before(async () => {
    server = await serve([], { cwd });
    await server.printed(/Set PASSWORD to choose your own\./);
  });
  after(async () => {
    await server.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it("prints where to sign in and the generated password, which signs in", async () => {
    const printed = server.stdout();
    assert.ok(printed.includes(`Sign in at ${server.url}/session/login with this password`), printed);
    const password = /\n\n {4}(\S+)\n\n/.exec(printed)?.[1];
    assert.ok(password, "the password is printed on a line of its own");
    const response = await fetch(`${server.url}/session/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ password }),
      redirect: "manual",
    });
    assert.equal(response.status, 303);
    assert.ok(response.headers.getSetCookie().some((cookie) => cookie.startsWith("possekit_session=")));
  });

  it("keeps the embedded database, the secret and the password under ./data", async () => {
    for (const name of ["db", "secret", "password"]) assert.ok(existsSync(join(cwd, "data", name)), name);
    // The detail is the owner's: signed in with the printed password.
    const password = /\n\n {4}(\S+)\n\n/.exec(server.stdout())?.[1] ?? "";
    const login = await fetch(`${server.url}/session/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ password }),
      redirect: "manual",
    });
    const cookie = login.headers.getSetCookie().find((value) => value.startsWith("possekit_session="));
    assert.ok(cookie, "signed in");
    const health = await fetch(`${server.url}/health`, { headers: { cookie: cookie.split(";")[0] ?? "" } });
    // The syndication endpoint, installed by default, reports its scheduler (running by default).
    assert.deepEqual(await health.json(), {
      status: "ok",
      database: "ok",
      engine: "pglite",
      "endpoint-syndicate": {
        scheduler: { state: "running", next_due_at: null, last_run: null },
        posts_needing_user: 0,
      },
    });
  });

  it("installs the syndication endpoint by default", async () => {
    const response = await fetch(`${server.url}/syndicate`);
    assert.equal(response.status, 401);
  });
});
