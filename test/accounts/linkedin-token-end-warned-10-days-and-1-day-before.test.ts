// A LinkedIn token lasts 60 days and cannot be refreshed: the owner is told by themselves (here by
// the signed webhook; no page opened, no click) 10 days and 1 day before it ends, each once, with
// the link that reconnects the account, never the token. The endpoint's clock is the test's.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer, readBody } from "../../dev/sandbox/http-kit.ts";
import type { AccountFlow } from "../../src/contract/account-flow.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { linkedinOAuthFlowFor } from "../../src/syndicators/linkedin/oauth/linkedin-oauth-flow.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { ServerClock } from "../schedule/scheduled-server.ts";

const hour = 3_600_000;
const day = 24 * hour;

describe("a LinkedIn token's end is warned of 10 days and 1 day before", () => {
  let hooks: RunningServer;
  const received: { subject: string; text: string; event: string }[] = [];
  let server: TestServer;
  const clock = new ServerClock();
  const token = "AQtoken-of-the-member-0123456789abcdef";

  before(async () => {
    hooks = await listen(async (request, response) => {
      received.push(JSON.parse((await readBody(request, 64 * 1024)).toString("utf8")));
      response.writeHead(204);
      response.end();
    });
    // The notifier reads the process's environment (docs/notifications.md); this file runs alone.
    process.env.NOTIFY_WEBHOOK_URL = `${hooks.url}/hook`;
    process.env.NOTIFY_WEBHOOK_SECRET = "a-secret-of-sixteen-or-more";
    class EndpointWithSandbox extends EndpointSyndicate {
      protected override accountFlows: readonly AccountFlow[] = [linkedinOAuthFlowFor("http://127.0.0.1:9")];
    }
    server = await startTestServer({
      engine: pgliteEngine,
      config: { plugins: [], fetch: { allowPrivate: true } },
      plugins: [new EndpointWithSandbox({}, { env: process.env, time: clock })],
    });
  });
  after(async () => {
    await server?.close();
    await hooks?.close();
    delete process.env.NOTIFY_WEBHOOK_URL;
    delete process.env.NOTIFY_WEBHOOK_SECRET;
  });

  it("warns at 10 days and at 1 day, once each, with the Reconnect link", async () => {
    const accounts = server.host.accounts;
    assert.ok(accounts);
    const ends = clock.now() + 10 * day + 30 * 60_000;
    const account = await accounts.save({
      type: "linkedin",
      options: {
        author: "urn:li:person:AbC123xyz",
        name: "Ada Lovelace",
        apiUrl: "http://127.0.0.1:9",
        tokenExpiresAt: new Date(ends).toISOString(),
      },
      display: { name: "Ada Lovelace" },
      secrets: { accessToken: token },
    });

    // 10 days and 30 minutes before: nothing yet.
    await clock.advance(hour - 1);
    // An hour's look after the 10-day mark: the first warning.
    await clock.advance(1);
    await until("the 10-day warning arrives", () => received.length >= 1);
    const [first] = received;
    assert.equal(first?.event, "expiring");
    assert.equal(first?.subject, "Ada Lovelace on LinkedIn: the access token ends in 10 days");
    const reconnect = `${server.url}/syndicate/accounts?reconnect=${account.id}#accounts-linkedin`;
    assert.ok(first?.text.includes(reconnect), first?.text);

    // Nine days of hourly looks later, 1 day before the end: the second, and no other.
    for (let hours = 0; hours < 9 * 24; hours += 24) await clock.advance(day);
    await until("the 1-day warning arrives", () => received.length >= 2);
    const second = received[1];
    assert.equal(second?.subject, "Ada Lovelace on LinkedIn: the access token ends in 1 day");
    assert.ok(second?.text.includes(reconnect));
    const database = server.host.database;
    assert.ok(database);
    const { rows } = await database.query(
      "SELECT days_before FROM linkedin_token_warnings ORDER BY days_before",
    );
    assert.deepEqual(
      rows.map((row) => (row as { days_before: number }).days_before),
      [1, 10],
    );
    // A day more of looks, then a second member whose token ends within the day: its warning comes
    // after every look before it (the database takes their writes in order), so by then any repeat
    // of the first member's would have arrived.
    await clock.advance(day - hour);
    await accounts.save({
      type: "linkedin",
      options: {
        author: "urn:li:person:Sentinel1",
        name: "Grace Hopper",
        apiUrl: "http://127.0.0.1:9",
        tokenExpiresAt: new Date(clock.now() + 2 * hour).toISOString(),
      },
      display: { name: "Grace Hopper" },
      secrets: { accessToken: "AQanother-token" },
    });
    await clock.advance(hour);
    await until("the second member's warning arrives", () => received.length >= 3);
    assert.deepEqual(
      received.map((message) => message.subject.split(" on LinkedIn")[0]),
      ["Ada Lovelace", "Ada Lovelace", "Grace Hopper"],
      "each warning once",
    );
    assert.ok(
      received.every((message) => !JSON.stringify(message).includes(token)),
      "never the token",
    );
  });
});
