// Target health is shared by every instance (decision 0020): a refusal that one instance recorded is
// cleared by the next send that succeeds on any instance, even one that last saw the target well
// and has not read the target list since. The target here cannot be checked (no verify()), so the
// refusal pauses it (decision 0048) until the user's retry sends, as its check: that send's success, not
// a check, must end the refusal for every instance. Two servers on one PostgreSQL schema, each with its own
// syndication core and its own pool, as separate processes have (an embedded PGlite database
// belongs to one process, so only PostgreSQL has several instances).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { Database } from "../../src/contract/database.ts";
import { openPostgres } from "../../src/server/database/postgres.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { sharedPostgres } from "./cluster.ts";

/** One schema as two instances see it: a pool each. */
async function openTwice(): Promise<{ first: Database; second: Database; close(): Promise<void> }> {
  const shared = await sharedPostgres();
  const first = await openPostgres(shared.url);
  const second = await openPostgres(shared.url);
  return {
    first,
    second,
    async close() {
      await Promise.all([first.close(), second.close()]);
      await shared.drop();
    },
  };
}

interface TargetJson {
  uid: string;
  state: string;
  refused_since: string | null;
}

describe("a send on one instance clears a refusal another instance recorded (PostgreSQL)", () => {
  let databases: Awaited<ReturnType<typeof openTwice>> | undefined;
  let target: Target | undefined;
  let first: EndpointServer | undefined;
  let second: EndpointServer | undefined;
  const token = randomBytes(12).toString("hex");
  before(async () => {
    databases = await openTwice();
    const sandbox = await startMastodonSandbox({ accessToken: token });
    const syndicator = () => {
      const uncheckable = new MastodonSyndicator({
        url: sandbox.url,
        user: sandbox.user,
        accessToken: token,
      });
      Object.defineProperty(uncheckable, "verify", { value: undefined });
      return uncheckable;
    };
    target = { sandbox, uid: syndicator().info.uid, syndicator };
    first = await startEndpointServer({ engine: pgliteEngine, targets: [target], database: databases.first });
    second = await startEndpointServer({
      engine: pgliteEngine,
      targets: [target],
      database: databases.second,
    });
  });
  after(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await closeAll(target);
    await databases?.close();
  });

  const stateOn = async (app: EndpointServer): Promise<TargetJson | undefined> => {
    const response = await fetch(`${app.endpoint}/targets`, {
      headers: { authorization: `Bearer ${app.token}`, accept: "application/json" },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { targets: TargetJson[] };
    return body.targets.find((entry) => entry.uid === target?.uid);
  };
  const sendOne = async (app: EndpointServer, content: string): Promise<PostResult> => {
    assert.ok(target);
    const url = await app.createPost({ content, targets: [target.uid] });
    return (await (await app.syndicate(`?source_url=${encodeURIComponent(url)}`)).json()) as PostResult;
  };

  it("the first instance's next successful send ends the second's refusal, with no page read between", async () => {
    assert.ok(first && second && target);
    // The first instance sends: from now on it believes the target well.
    const sent = await sendOne(first, "sent by the first instance");
    assert.equal(sent.status, "syndicated", JSON.stringify(sent));

    // The token is revoked; the second instance's send is refused and recorded as such.
    target.sandbox.setAccessToken("a-token-issued-later");
    const refused = await sendOne(second, "refused on the second instance");
    assert.equal(refused.status, "failed", JSON.stringify(refused));
    assert.equal((await stateOn(second))?.state, "refused");

    // The token works again; the user retries the refused post on the first instance, which has not
    // read the targets since: the send goes out and succeeds.
    target.sandbox.setAccessToken(token);
    const again = await first.syndication().runs.retry(refused.url, [target.uid]);
    assert.equal(again.status, "syndicated", JSON.stringify(again));

    const seen = await stateOn(second);
    assert.equal(seen?.state, "ok", JSON.stringify(seen));
    assert.equal(seen?.refused_since, null);
  });
});
