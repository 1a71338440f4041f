// Decision 0009: a browser's form post (no JavaScript), signed in with its CSRF token, is
// redirected back (303) with the outcome as a flash message. A local redirect_uri is honoured;
// anything else is refused with 400 before anything is sent.
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

const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

interface Flash {
  kind: string;
  text: string;
}

/** The flash message a redirect sets, as the next page will show it. */
function flashOf(response: Response): Flash {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("possekit_flash="));
  assert.ok(cookie, "a flash cookie is set");
  const value = cookie.slice("possekit_flash=".length).split(";")[0] ?? "";
  // "<base64url JSON>.<signature>": the message is readable, only the server can write one.
  const [message = ""] = decodeURIComponent(value).split(".");
  return JSON.parse(Buffer.from(message, "base64url").toString("utf8")) as Flash;
}

for (const engine of engines) {
  describe(`a browser's form post is redirected back with a flash message (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let session = { cookie: "", csrf: "" };
    before(async () => {
      ({ target, app } = await startWithOneTarget(engine));
      session = await app.server.signIn();
    });
    after(() => closeServerThenTargets(app, target));

    const submit = (fields: Record<string, string>) => {
      assert.ok(app);
      return app.syndicate(
        "",
        {
          headers: {
            cookie: session.cookie,
            accept: HTML,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
          redirect: "manual",
        },
        false,
      );
    };

    it("runs the batch and goes back to the endpoint's page with what happened", async () => {
      assert.ok(app && target);
      await app.createPost({ content: "from the page 1", targets: [target.uid] });
      await app.createPost({ content: "from the page 2", targets: [target.uid] });
      const answer = await submit({});
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get("location"), "/syndicate");
      const flash = flashOf(answer);
      assert.equal(flash.kind, "success");
      assert.doesNotMatch(flash.text, /syndicate\.flash/, "a sentence, not a message key");
      assert.match(flash.text, /2/);
      assert.equal(target.sandbox.statuses.length, 2);
    });

    it("honours a local redirect_uri, where the next page shows the flash", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "one post", targets: [target.uid] });
      const answer = await submit({ source_url: post, redirect_uri: "/status" });
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get("location"), "/status");
      const flash = flashOf(answer);
      assert.equal(flash.kind, "success");
      assert.doesNotMatch(flash.text, /syndicate\.flash/);
      assert.equal(target.sandbox.statuses.length, 3);

      const flashCookie = answer.headers
        .getSetCookie()
        .find((c) => c.startsWith("possekit_flash="))
        ?.split(";")[0];
      const page = await fetch(`${app.url}/status`, {
        headers: { cookie: `${session.cookie}; ${flashCookie}`, accept: HTML },
      });
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.ok(html.includes("flash-success"), "the page shows the flash");
    });

    it("honours the peer's syndication[redirect_uri] and syndication[source_url] form fields", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "peer form", targets: [target.uid] });
      const answer = await submit({
        "syndication[source_url]": post,
        "syndication[redirect_uri]": "/status?from=peer",
      });
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get("location"), "/status?from=peer");
      assert.equal(flashOf(answer).kind, "success");
      assert.equal(target.sandbox.statuses.at(-1)?.text, "peer form");
    });

    it("honours redirect_uri in the query, as the peer does, whatever the client accepts", async () => {
      assert.ok(app && target);
      const post = await app.createPost({ content: "query redirect", targets: [target.uid] });
      const answer = await app.syndicate(
        `?source_url=${encodeURIComponent(post)}&redirect_uri=${encodeURIComponent("/status")}`,
        { headers: { accept: "*/*" }, redirect: "manual" },
      );
      assert.equal(answer.status, 303);
      assert.equal(answer.headers.get("location"), "/status");
      assert.equal(target.sandbox.statuses.at(-1)?.text, "query redirect");
    });

    it("reports a failure as an error flash", async () => {
      assert.ok(app && target);
      await app.createPost({ content: "will fail", targets: [target.uid] });
      target.sandbox.setFailure(503, "Down for maintenance");
      try {
        const answer = await submit({});
        assert.equal(answer.status, 303);
        assert.equal(flashOf(answer).kind, "error");
      } finally {
        target.sandbox.clearBehaviour();
      }
    });

    for (const [what, uri] of [
      ["another site", "https://evil.example/"],
      ["a protocol-relative URL", "//evil.example/"],
      ["a backslash path", "/\\evil.example/"],
      ["a relative path", "status"],
      ["a javascript: URL", "javascript:alert(1)"],
    ] as const) {
      for (const field of ["redirect_uri", "syndication[redirect_uri]"]) {
        it(`refuses ${field} to ${what} with 400, sending nothing`, async () => {
          assert.ok(app && target);
          const sent = target.sandbox.requests.length;
          const answer = await app.syndicate("", {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ [field]: uri }),
            redirect: "manual",
          });
          const description = await assertError(answer, 400, "invalid_request");
          assert.match(description, /redirect_uri/);
          assert.equal(target.sandbox.requests.length, sent);
          assert.equal(answer.headers.get("location"), null);
        });
      }
    }
  });
}
