// Decision 0028: a post with copies on Mastodon, Bluesky (the PDS fake) and another site's Micropub
// endpoint, deleted through Micropub: the scheduler alone deletes each copy once (Mastodon's
// status, Bluesky's record with deleteRecord, the other site's post with action=delete), and the
// links leave the post.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "../endpoint/endpoint-server.ts";
import { type FakePds, startFakePds } from "../fakes/bluesky-pds.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { engines } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { looks, ServerClock, schedulerOf } from "../schedule/scheduled-server.ts";

for (const engine of engines) {
  describe(`a Micropub delete deletes one copy per target (${engine.name})`, () => {
    let mastodon: Target | undefined;
    let pds: FakePds | undefined;
    let other: FakeMicropub | undefined;
    let app: EndpointServer | undefined;
    let bluesky: BlueskySyndicator;
    let micropubTarget: MicropubSyndicator;
    before(async () => {
      mastodon = await startTarget();
      pds = await startFakePds({ handle: "alice.example.com", password: "pw" });
      other = await startFakeMicropub({ token: "their-token" });
      bluesky = new BlueskySyndicator({ handle: "alice.example.com", password: "pw", serviceUrl: pds.url });
      micropubTarget = new MicropubSyndicator(
        { micropubEndpoint: other.url, accessToken: "their-token", name: "Other site" },
        {},
      );
      app = await startEndpointServer({
        engine,
        targets: [mastodon],
        syndicators: [bluesky, micropubTarget],
        pluginOptions: { schedule: { enabled: true, whenLive: false } },
        clock: new ServerClock(),
      });
    });
    after(async () => {
      await app?.close();
      await closeAll(mastodon, pds, other);
    });

    it("deletes each copy once, with nobody asking", async () => {
      assert.ok(app && mastodon && pds && other);
      const uids = [mastodon.uid, bluesky.info.uid, micropubTarget.info.uid];
      const url = await app.createPost({ content: "Everywhere, then nowhere", targets: uids });
      const stored = async () => (await app?.server.host.posts?.findByUrl(url))?.properties ?? {};
      await until("all three copies are in the post", async () => {
        const syndication = (await stored()).syndication;
        return Array.isArray(syndication) && syndication.length === 3;
      });
      assert.equal(pds.records.length, 1);
      assert.equal(other.posts.length, 1);

      const token = await app.server.token("delete");
      const deleted = await fetch(`${app.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ action: "delete", url }),
      });
      assert.equal(deleted.status, 204);

      const otherDeletes = () =>
        other?.requests.filter(
          (r) =>
            (r.json as { action?: string } | undefined)?.action === "delete" ||
            r.form?.action?.[0] === "delete",
        ) ?? [];
      await until(
        "every copy is deleted",
        async () =>
          Boolean(mastodon?.sandbox.statuses[0]?.deletedAt) &&
          pds?.records.length === 0 &&
          otherDeletes().length === 1,
      );
      await looks(schedulerOf(app));
      assert.equal(
        mastodon.sandbox.requests.filter((r) => r.method === "DELETE").length,
        1,
        "Mastodon: once",
      );
      assert.equal(
        pds.calls.filter((c) => c.nsid === "com.atproto.repo.deleteRecord").length,
        1,
        "Bluesky: once",
      );
      assert.equal(otherDeletes().length, 1, "the other site: once");
      assert.equal(other.stored.size, 0);
      assert.deepEqual((await stored()).syndication ?? [], [], "the links left the post");
    });
  });
}
