// Decision 0039: the public copies routes read the database for anyone, so every request counts
// against its address (option copies.limit per copies.windowMs), answered or refused. Past it: 429
// with Retry-After, as JSON. A stranger's flood spends only the stranger's budget: the owner's site
// build from another address still gets copies.json, and the owner's own credential its requests.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import {
  assertError,
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
} from "./endpoint-server.ts";

const LIMIT = 3;
const STRANGER = "203.0.113.7";
const BUILD = "198.51.100.20";

for (const engine of engines) {
  describe(`GET /syndicate/copies is rate limited per address (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;

    before(async () => {
      ({ target, app } = await startWithOneTarget(engine, {
        pluginOptions: { copies: { limit: LIMIT, windowMs: 60_000 }, schedule: { enabled: false } },
        // The test's requests come through a proxy on loopback that names the client.
        config: { application: { trustProxy: ["loopback"] } },
      }));
    });
    after(() => closeServerThenTargets(app, target));

    const from = (address: string, path: string, headers: Record<string, string> = {}) => {
      assert.ok(app);
      return fetch(`${app.endpoint}${path}`, { headers: { "x-forwarded-for": address, ...headers } });
    };

    it(`429 after ${LIMIT} requests from one address; another address and the owner go on`, async () => {
      assert.ok(app);
      // Refused requests count too: a stranger cannot probe URLs for free.
      assert.equal((await from(STRANGER, "/copies?url=nonsense")).status, 400);
      assert.equal((await from(STRANGER, "/copies.json")).status, 200);
      assert.equal(
        (await from(STRANGER, `/copies?url=${encodeURIComponent(`${app.url}/nothing/`)}`)).status,
        404,
      );
      const limited = await from(STRANGER, "/copies.json", { accept: "text/html" });
      assert.match(limited.headers.get("retry-after") ?? "", /^\d+$/);
      assert.match(await assertError(limited, 429, "too_many_requests"), /try again/);
      const one = `/copies?url=${encodeURIComponent(`${app.url}/nothing/`)}`;
      assert.equal((await from(STRANGER, one)).status, 429, "both routes share the budget");

      // The owner's site build, from its own address, is not held up by the stranger.
      const build = await from(BUILD, "/copies.json");
      assert.equal(build.status, 200);
      // Nor is the owner's own credential, from the stranger's very address.
      const owner = await from(STRANGER, "/status", {
        authorization: `Bearer ${app.token}`,
        accept: "application/json",
      });
      assert.equal(owner.status, 200);
    });
  });
}
