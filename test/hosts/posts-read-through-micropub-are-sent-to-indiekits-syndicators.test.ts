// Decision 0042, with nobody watching: the plug-in inside an Indiekit-shaped host, on its own
// database folder, reads the posts through a Micropub endpoint (the remote-Micropub source), sends
// each to the target its mp-syndicate-to names, here one of Indiekit's own syndicators, and writes
// the link back there with a Micropub update. Indiekit without MongoDB keeps no posts (its q=source
// lists none: docs/indiekit.md), so the Micropub server holding them is another possekit, over
// real HTTP, as in the remote source's own tests.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { EndpointPlugin } from "../../src/contract/plugin.ts";
import type { PostProperties } from "../../src/contract/syndicator.ts";
import { EndpointSyndicate } from "../../src/index.ts";
import { eventually, type Remote, startRemote } from "../sources/remote-micropub.ts";

const TARGET = "https://social.example/@me";

describe("inside Indiekit, posts read through Micropub go to Indiekit's syndicators", () => {
  let remote: Remote;
  let folder: string;
  before(async () => {
    remote = await startRemote();
    folder = mkdtempSync(join(tmpdir(), "possekit-indiekit-"));
  });
  after(async () => {
    await remote.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("sends a post once, with no request, and writes its link back to the Micropub server", async () => {
    const sent: PostProperties[] = [];
    const theirs = {
      name: "Example syndicator",
      info: { uid: TARGET, name: "@me@social.example" },
      async syndicate(properties: PostProperties) {
        sent.push(properties);
        return `https://social.example/@me/${sent.length}`;
      },
    };
    const host = {
      endpoints: new Set<EndpointPlugin>(),
      publication: { me: remote.server.url, syndicationTargets: [theirs] },
      addEndpoint(endpoint: EndpointPlugin) {
        host.endpoints.add(endpoint);
      },
    };
    const url = await remote.create("Written in Indiekit", [TARGET]);
    const plugin = new EndpointSyndicate(
      {
        mountPath: "/posse",
        database: { folder: join(folder, "posse") },
        schedule: { enabled: true, whenLive: false },
        targets: { checkAtStart: false },
        sources: [
          { type: "micropub", name: "indiekit", endpoint: remote.endpoint, tokenEnv: "INDIEKIT_TOKEN" },
        ],
      },
      { env: { INDIEKIT_TOKEN: remote.token } },
    );
    await plugin.init(host);
    try {
      const links = await eventually("the link is written back", async () => {
        const properties = await remote.properties(url);
        return (properties.syndication?.length ?? 0) > 0 ? properties.syndication : undefined;
      });
      assert.deepEqual(links, ["https://social.example/@me/1"]);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]?.url, url, "the post as the Micropub server has it");
      const after = await remote.properties(url);
      assert.equal(after["mp-syndicate-to"], undefined, "no target left to send to");
    } finally {
      await plugin.stopOwnHost();
    }
    assert.equal(sent.length, 1, "sent once");
  });
});
