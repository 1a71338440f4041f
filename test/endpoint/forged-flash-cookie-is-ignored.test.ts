// Decision 0018: the flash message (the outcome shown after a form post) lived in an unsigned
// cookie, so anything able to set a cookie for the site (a sibling subdomain, a script on a shared
// host) could make the admin page announce whatever it liked: "Syndicated", or a link to follow. The
// cookie is now signed with the server's secret; one the server did not write is ignored.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pgliteEngine } from "../helpers/databases.ts";
import {
  closeAll,
  type EndpointServer,
  startEndpointServer,
  startTarget,
  type Target,
} from "./endpoint-server.ts";

const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const FORGED = { kind: "error", text: "Your session has expired: sign in again at https://evil.example/" };
const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("a forged flash cookie is ignored", () => {
  let target: Target | undefined;
  let app: EndpointServer | undefined;
  let session = { cookie: "", csrf: "" };
  before(async () => {
    target = await startTarget();
    app = await startEndpointServer({ engine: pgliteEngine, targets: [target] });
    session = await app.server.signIn();
  });
  after(async () => {
    await app?.close();
    await closeAll(target);
  });

  const pageWith = async (flashCookie: string) => {
    assert.ok(app);
    const page = await fetch(`${app.url}/status`, {
      headers: { cookie: `${session.cookie}; possekit_flash=${flashCookie}`, accept: HTML },
    });
    assert.equal(page.status, 200);
    return page.text();
  };

  it("shows the flash the server wrote after a form post", async () => {
    assert.ok(app && target);
    const answer = await app.syndicate(
      "",
      {
        headers: {
          cookie: session.cookie,
          accept: HTML,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, redirect_uri: "/status" }),
        redirect: "manual",
      },
      false,
    );
    assert.equal(answer.status, 303);
    const genuine = answer.headers
      .getSetCookie()
      .find((c) => c.startsWith("possekit_flash="))
      ?.split(";")[0]
      ?.slice("possekit_flash=".length);
    assert.ok(genuine);
    assert.match(await pageWith(genuine), /class="flash flash-(success|info)"/);
  });

  it("ignores a flash cookie without a signature, with a made-up one, or with another message's", async () => {
    assert.ok(app);
    const genuineAnswer = await app.syndicate(
      "",
      {
        headers: {
          cookie: session.cookie,
          accept: HTML,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: session.csrf, redirect_uri: "/status" }),
        redirect: "manual",
      },
      false,
    );
    const signature =
      decodeURIComponent(
        genuineAnswer.headers
          .getSetCookie()
          .find((c) => c.startsWith("possekit_flash="))
          ?.split(";")[0] ?? "",
      ).split(".")[1] ?? "";
    assert.ok(signature, "the server's cookie is signed");
    for (const forged of [
      encoded(FORGED),
      `${encoded(FORGED)}.${Buffer.alloc(32).toString("base64url")}`,
      `${encoded(FORGED)}.${signature}`,
    ]) {
      const html = await pageWith(forged);
      assert.doesNotMatch(html, /evil\.example/, forged);
      assert.doesNotMatch(html, /class="flash /, forged);
    }
  });
});
