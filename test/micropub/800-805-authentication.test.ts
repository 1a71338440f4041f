// micropub.rocks server cases 800-805: access tokens, where they may be sent, and what they allow.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../helpers/databases.ts";
import { errorOf, type MicropubServer, startMicropubServer } from "./micropub-server.ts";

for (const engine of engines) {
  describe(`Micropub authentication (${engine.name})`, () => {
    let mp: MicropubServer;
    before(async () => {
      mp = await startMicropubServer(engine);
    });
    after(() => mp.close());

    it("800 accepts the access token in the HTTP Authorization header", async () => {
      const response = await mp.postForm(
        "h=entry&content=Testing+accepting+access+token+in+HTTP+Authorization+header",
      );
      assert.equal(response.status, 201);
      assert.ok(response.headers.get("location"));
    });

    it("801 accepts the access token in the POST body", async () => {
      const response = await mp.postForm(
        `h=entry&content=Testing+accepting+access+token+in+post+body&access_token=${encodeURIComponent(mp.token)}`,
        null,
      );
      assert.equal(response.status, 201);
      assert.ok(response.headers.get("location"));
    });

    it("802 does not store the access token as a property", async () => {
      const response = await mp.postForm(
        `h=entry&content=Testing+accepting+access+token+in+post+body&access_token=${encodeURIComponent(mp.token)}`,
        null,
      );
      const url = response.headers.get("location");
      assert.ok(url);
      const properties = await mp.source(url);
      assert.deepEqual(properties.content, ["Testing accepting access token in post body"]);
      assert.equal("access_token" in properties, false);
      const stored = await mp.server.host.posts?.findByUrl(url);
      assert.equal(JSON.stringify(stored?.properties).includes(mp.token), false);
    });

    it("803 rejects unauthenticated requests with 401 unauthorized", async () => {
      const error = await errorOf(await mp.postForm("h=entry&content=No+token", null));
      assert.equal(error.status, 401);
      assert.equal(error.error, "unauthorized");
      const forged = await errorOf(await mp.postForm("h=entry&content=Bad+token", "not-a-token"));
      assert.equal(forged.status, 401);
      assert.equal(forged.error, "unauthorized");
    });

    it("804 rejects a token without the create scope with 401 insufficient_scope and the scope (Micropub §3.8)", async () => {
      const readOnly = await mp.server.token("update");
      const response = await mp.postForm(
        "h=entry&content=Testing+a+request+with+an+unauthorized+access+token",
        readOnly,
      );
      assert.match(
        response.headers.get("www-authenticate") ?? "",
        /error="insufficient_scope", scope="create"/,
      );
      const body = (await response.clone().json()) as { scope?: string };
      assert.equal(body.scope, "create");
      const error = await errorOf(response);
      assert.equal(error.status, 401);
      assert.equal(error.error, "insufficient_scope");
      assert.match(error.description, /"create"/);
    });

    it("805 rejects the access token sent both in the header and in the body with 400", async () => {
      const error = await errorOf(
        await mp.postForm(
          `h=entry&content=Should+not+be+created&access_token=${encodeURIComponent(mp.token)}`,
        ),
      );
      assert.equal(error.status, 400);
      assert.equal(error.error, "invalid_request");
      const list = (await (await mp.query("q=source&limit=100")).json()) as {
        items: { properties: { content?: string[] } }[];
      };
      assert.equal(
        list.items.some((item) => item.properties.content?.[0] === "Should not be created"),
        false,
      );
    });
  });
}
