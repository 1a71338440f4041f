// Requests the fuzz test found answered 500; each is a client's mistake and must get a 400 that says
// what is wrong. Kept as plain tests, so that they stay fixed whatever seed the fuzzer draws.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import express from "express";
import { z } from "zod";
import type { EndpointPlugin, PluginMeta, Server } from "../../src/contract/plugin.ts";
import { engines } from "../helpers/databases.ts";
import { postMicropubJson } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** node:http sends the path as written (fetch would normalise it). */
function rawPath(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      { host: target.hostname, port: target.port, method: "POST", path, headers },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** An endpoint plug-in whose one route updates the post named in the body through the post source. */
class DeletedPostProbe implements EndpointPlugin {
  readonly id = "deleted-post-probe";
  readonly name = "Deleted post probe";
  readonly mountPath = "/deleted-post-probe";
  readonly routes = express.Router();
  private server: Server | null = null;

  constructor() {
    this.routes.post("/", async (req, res) => {
      const { url } = z.object({ url: z.string() }).parse(req.body);
      await this.server?.postSource?.update(url, { add: { category: ["probe"] } });
      res.json({ updated: url });
    });
  }

  meta(): PluginMeta {
    return { url: import.meta.url };
  }

  init(server: Server): void {
    this.server = server;
    server.addEndpoint(this);
  }
}

for (const engine of engines) {
  describe(`malformed input the fuzzer found (${engine.name})`, () => {
    let server: TestServer;
    let token = "";

    before(async () => {
      server = await startTestServer({
        engine,
        config: { plugins: ["@possekit/endpoint-syndicate"] },
        plugins: [new DeletedPostProbe()],
      });
      token = await server.token("create update");
    });

    after(() => server.close());

    const create = (body: string) => postMicropubJson(server.url, token, body);

    it("answers 400 to a path that reads as //host under a mount, with a host no URL can have", async () => {
      // Without an Authorization header, authentication looks for ?token= and so reads req.query,
      // which hands a path with a "#" to Node's url.parse: "//.y$;C@[…" then reads as a host.
      const answer = await rawPath(server.url, "/micropub//.y$;C@[$['%/x?q=1#x", {
        accept: "application/json",
      });
      assert.equal(answer.status, 400, answer.body);
      assert.equal(JSON.parse(answer.body).error, "invalid_request");
    });

    it("answers 400 to a NUL character in a query parameter or a body field", async () => {
      // PostgreSQL refuses U+0000 in text: it reached queries as a post URL (q=source, the results
      // page's ?url=) and as post text.
      const lookups = [
        `/micropub?q=source&url=${encodeURIComponent("https://example.org/a\u0000")}`,
        `/syndicate/posts?url=${encodeURIComponent("https://example.org/a\u0000")}`,
      ];
      for (const path of lookups) {
        const response = await fetch(`${server.url}${path}`, {
          headers: { authorization: `Bearer ${token}`, accept: "application/json" },
        });
        assert.equal(response.status, 400, path);
        assert.match(((await response.json()) as { error_description: string }).error_description, /NUL/);
      }
      const response = await create(
        JSON.stringify({ type: ["h-entry"], properties: { content: ["a\u0000b"] } }),
      );
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: string; error_description: string };
      assert.equal(body.error, "invalid_request");
      assert.equal(
        body.error_description,
        "The request's body contains a NUL character (U+0000), which no field may hold",
      );
    });

    it("refuses to store a NUL character however a post is written", async () => {
      const posts = server.host.posts;
      assert.ok(posts);
      await assert.rejects(posts.create({ properties: { content: "a\u0000b" } }), {
        name: "InvalidPostError",
        message: /"content" contains a NUL character \(U\+0000\)/,
      });
    });

    it("answers 400 to a post whose text holds half of a surrogate pair", async () => {
      const response = await create(
        '{"type":["h-entry"],"properties":{"name":["x\\ud800y"],"content":["ok \\ud83d\\ude00"]}}',
      );
      assert.equal(response.status, 400);
      assert.match(
        ((await response.json()) as { error_description: string }).error_description,
        /"name" contains/,
      );
    });

    it("answers 400 to a property nested thousands of levels deep", async () => {
      const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
      const response = await create(`{"type":["h-entry"],"properties":{"content":["x"],"category":${deep}}}`);
      assert.equal(response.status, 400);
      assert.match(
        ((await response.json()) as { error_description: string }).error_description,
        /"category" is nested deeper than 32 levels/,
      );
    });

    it("answers 404, not 500, when a route works on a post that was deleted meanwhile", async () => {
      // The fuzzer's retry (from the page) and Micropub delete of one post raced: the route found the
      // post, then the core no longer did. The probe route below asks the real post service for a
      // post that is not there, as the core did then.
      const response = await fetch(`${server.url}/deleted-post-probe`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({ url: "https://example.org/notes/deleted-meanwhile/" }),
      });
      assert.equal(response.status, 404);
      assert.deepEqual(await response.json(), {
        error: "not_found",
        error_description: "No post exists at https://example.org/notes/deleted-meanwhile/",
      });
    });

    it("still stores emoji and every other well-formed text", async () => {
      const response = await create(
        JSON.stringify({ type: ["h-entry"], properties: { content: ["ok 😀 \\u0000 é"] } }),
      );
      assert.equal(response.status, 201);
      const location = response.headers.get("location") as string;
      const source = await fetch(`${server.url}/micropub?q=source&url=${encodeURIComponent(location)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      const { properties } = (await source.json()) as { properties: { content: unknown[] } };
      assert.deepEqual(properties.content, ["ok 😀 \\u0000 é"]);
    });
  });
}
