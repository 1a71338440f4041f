// Decision 0006: `application.trustProxy: true` would take any X-Forwarded-For at its word, so
// a client could pick a new address per request and escape every per-address limit. It is refused
// at start with one line saying what to write instead: a hop count or the proxies' addresses. By
// default the header is ignored, so rotating it gains a stranger nothing.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/server/config/load.ts";
import TestPlugin from "../fixtures/test-plugin/index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const SECRETS = { SECRET: "a-test-secret-of-32-characters..", PASSWORD: "a test password" };

function problems(trustProxy: unknown): string[] {
  try {
    loadConfig({ config: { application: { trustProxy } }, env: SECRETS });
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
}

describe("application.trustProxy", () => {
  it("refuses true, naming the option and what to write instead", () => {
    assert.deepEqual(problems(true), [
      'application.trustProxy: true would trust any X-Forwarded-For, so a client could pick its own address and escape every rate limit; write the number of proxies in front of the server (e.g. 1) or their addresses (e.g. ["127.0.0.1"])',
    ]);
  });

  it("takes false, a hop count, or the proxies' addresses and ranges", () => {
    for (const value of [false, 0, 1, ["127.0.0.1"], ["10.0.0.0/8", "::1", "fd00::/8", "loopback"]])
      assert.deepEqual(problems(value), [], JSON.stringify(value));
  });

  it("refuses what Express would misread, saying which entry", () => {
    assert.match(problems(["10.0.0.0/33"])[0] ?? "", /^application\.trustProxy\.0: must be an IP address/);
    assert.match(problems(["proxy.example"])[0] ?? "", /^application\.trustProxy\.0: /);
    assert.match(problems("1")[0] ?? "", /^application\.trustProxy: must be false, the number of proxies/);
    assert.match(problems([])[0] ?? "", /^application\.trustProxy/);
  });

  describe("by default", () => {
    let server: TestServer | undefined;
    after(() => server?.close());

    it("ignores X-Forwarded-For, so a new one per request does not reset a stranger's count", async () => {
      server = await startTestServer({
        database: false,
        config: { plugins: [], application: { rateLimit: { public: 3 } } },
        plugins: [new TestPlugin()],
      });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${server.url}/test-mount/whoami`, {
          headers: { "x-forwarded-for": `203.0.113.${i + 1}`, accept: "application/json" },
        });
        statuses.push(response.status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    });
  });
});
