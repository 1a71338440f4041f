// Decision 0002: without a credential, or with one that does not verify, the
// endpoint answers 401 with {error, error_description} and WWW-Authenticate, and sends nothing.
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

// A token of the right shape signed with another server's secret.
const FOREIGN_TOKEN =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzY29wZSI6ImNyZWF0ZSB1cGRhdGUiLCJtZSI6Imh0dHA6Ly8xMjcuMC4wLjEvIn0.c2lnbmVkLWVsc2V3aGVyZS1ub3QtaGVyZQ";

for (const engine of engines) {
  describe(`POST /syndicate answers 401 without valid credentials (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      await app.createPost({ content: "waiting", targets: [target.uid] });
    });
    after(() => closeServerThenTargets(app, target));

    const cases: Array<[string, () => [string, RequestInit]]> = [
      ["no credential at all", () => ["", {}]],
      [
        "a Bearer token that does not verify",
        () => ["", { headers: { authorization: `Bearer ${FOREIGN_TOKEN}` } }],
      ],
      [
        "an Authorization header that is not Bearer",
        () => ["", { headers: { authorization: "Basic dXNlcjpwYXNz" } }],
      ],
      ["a query token that is not a token", () => ["?token=not-a-token", {}]],
      ["the query token given twice", () => [`?token=${FOREIGN_TOKEN}&token=${FOREIGN_TOKEN}`, {}]],
      [
        "a form access_token that does not verify",
        () => [
          "",
          {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ access_token: FOREIGN_TOKEN }),
          },
        ],
      ],
      [
        "a session cookie that is not ours",
        () => ["", { headers: { cookie: "possekit_session=forged.value" } }],
      ],
    ];

    for (const [what, request] of cases) {
      it(`refuses ${what}`, async () => {
        assert.ok(app && target);
        const response = await app.syndicate(...request(), false);
        assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
        const description = await assertError(response, 401, "unauthorized");
        assert.ok(description.length > 10, "the description says what to do");
        assert.equal(target.sandbox.requests.length, 0);
      });
    }

    it("still has the post awaiting after all of them", async () => {
      assert.ok(app);
      const inProgress = await app.syndication().reads.inProgress();
      assert.equal(inProgress, null, "no run was started");
      assert.equal((await app.syndication().reads.recentRuns()).length, 0);
    });
  });
}
