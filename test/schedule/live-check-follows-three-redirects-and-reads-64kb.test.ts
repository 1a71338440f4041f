// Decision 0015, schedule.whenLive: the check that a post is live is a GET under the outgoing-fetch
// rules that follows at most 3 redirects and reads at most 64 KB: a page behind 3 redirects is
// live, one behind 4 is not; a 2xx page of a megabyte is live without being read whole; 404 and
// an unreachable site are not live and say why.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import { fetchLive } from "../../src/syndication/due/live-checks.ts";

describe("the live check of a post's URL", () => {
  let server: Server;
  let base = "";
  let bytesSent = 0;
  before(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://site").pathname;
      const hops = /^\/hop\/(\d+)$/.exec(path);
      if (hops) {
        const left = Number(hops[1]);
        response.writeHead(302, { location: left > 1 ? `/hop/${left - 1}` : "/page" });
        response.end();
      } else if (path === "/page") {
        response.writeHead(200, { "content-type": "text/html" });
        response.end("<!doctype html><p>live</p>");
      } else if (path === "/big") {
        response.writeHead(200, { "content-type": "text/html" });
        const chunk = "x".repeat(64 * 1024);
        const write = () => {
          while (bytesSent < 1024 * 1024) {
            bytesSent += chunk.length;
            if (!response.write(chunk)) return void response.once("drain", write);
          }
          response.end();
        };
        write();
      } else {
        response.writeHead(404);
        response.end("Not found");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const policy = () => ({ ownSite: `${base}/` });

  it("is live behind three redirects and not behind four", async () => {
    assert.deepEqual(await fetchLive(`${base}/hop/3`, policy()), { live: true, status: 200 });
    const four = await fetchLive(`${base}/hop/4`, policy());
    assert.equal(four.live, false);
    assert.match(four.error ?? "", /more than 3 redirects/);
  });

  it("is live for a large 2xx page, read no further than 64 KB", async () => {
    const answer = await fetchLive(`${base}/big`, policy());
    assert.deepEqual(answer, { live: true, status: 200 });
  });

  it("is not live on a 404 or when nothing answers, and says why", async () => {
    const missing = await fetchLive(`${base}/missing`, policy());
    assert.deepEqual(missing, { live: false, status: 404, error: "404 Not Found" });
    const nowhere = await fetchLive("http://127.0.0.1:1/post/", { ownSite: "http://127.0.0.1:1/" });
    assert.equal(nowhere.live, false);
    assert.match(nowhere.error ?? "", /could not connect/);
  });

  it("refuses a private address that is not the user's own site", async () => {
    const refused = await fetchLive(`${base}/page`, { ownSite: "https://example.org/" });
    assert.equal(refused.live, false);
    assert.match(refused.error ?? "", /refused: private address/);
  });
});
