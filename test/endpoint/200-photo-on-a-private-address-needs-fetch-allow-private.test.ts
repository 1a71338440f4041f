// SSRF through the whole server: a Micropub client with a token names a photo on 127.0.0.1 (not the
// user's site). Syndication refuses to fetch it and the post waits for the user with the reason;
// the same post on a server configured with `fetch.allowPrivate: true` (a home network) goes out.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { listen, type RunningServer } from "../../dev/sandbox/http-kit.ts";
import { jpegBytes } from "../fakes/photo-server.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import {
  type BatchBody,
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "./endpoint-server.ts";

describe("a photo on a private address is fetched only with fetch.allowPrivate", () => {
  let target: Target;
  let nas: RunningServer;
  let nasHits = 0;
  let app: EndpointServer | undefined;
  before(async () => {
    target = await startTarget();
    nas = await listen((_request, response) => {
      nasHits++;
      response.writeHead(200, { "content-type": "image/jpeg", "content-length": jpegBytes.length });
      response.end(jpegBytes);
    });
  });
  after(async () => {
    await app?.close();
    await closeAll(target, nas);
  });

  async function syndicatePhotoPost(config: Record<string, unknown>): Promise<BatchBody> {
    await app?.close();
    app = await startEndpointServer({ engine: pgliteEngine, targets: [target], config });
    await app.createPost({
      content: "From the NAS",
      targets: [target.uid],
      fields: { photo: `${nas.url}/family.jpg` },
    });
    const answer = await app.syndicate();
    assert.equal(answer.status, 200);
    return (await answer.json()) as BatchBody;
  }

  it("by default: refused, nothing fetched or posted, the reason kept for the user", async () => {
    const body = await syndicatePhotoPost({});
    const failure = body.results[0]?.targets[0];
    assert.equal(failure?.status, "failed");
    assert.equal(
      failure?.error,
      `Mastodon: could not fetch the photo ${nas.url}/family.jpg: refused: private address`,
    );
    assert.equal(nasHits, 0);
    assert.equal(target.sandbox.statuses.length, 0);
  });

  it("with fetch.allowPrivate: true the photo is uploaded and the status posted", async () => {
    const body = await syndicatePhotoPost({ fetch: { allowPrivate: true } });
    assert.equal(body.results[0]?.status, "syndicated", JSON.stringify(body.results[0]));
    assert.equal(nasHits, 1);
    assert.equal(target.sandbox.media.length, 1);
    assert.equal(target.sandbox.statuses.length, 1);
  });
});
