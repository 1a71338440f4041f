// What a client says of itself, fetched from a real HTTP server on the loopback address (allowed by
// the policy's allowPrivate, as a home network's would be): the redirect URIs it may be sent to are
// only ever those its own document lists, under its own client_id.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fetchClientInfo } from "../../src/server/indieauth/client-metadata.ts";

interface Page {
  type: string;
  body: string | ((clientId: string) => string);
  status?: number;
  link?: string;
}

const pages = new Map<string, Page>();
/** The Accept header of each request, in order. */
const accepts: string[] = [];
let server: Server;
let origin = "";

before(async () => {
  server = createServer((req, res) => {
    accepts.push(req.headers.accept ?? "");
    const page = pages.get(req.url ?? "");
    if (!page) {
      res.writeHead(404, { "content-type": "text/plain" }).end("none");
      return;
    }
    const headers: Record<string, string> = { "content-type": page.type };
    if (page.link) headers.link = page.link;
    const body = typeof page.body === "string" ? page.body : page.body(`${origin}${req.url}`);
    res.writeHead(page.status ?? 200, headers).end(body);
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

/** The client at this path, serving this page. */
async function client(path: string, page: Page) {
  pages.set(path, page);
  return fetchClientInfo(`${origin}${path}`, { allowPrivate: true });
}

const json = (document: (clientId: string) => Record<string, unknown>): Page => ({
  type: "application/json",
  body: (clientId) => JSON.stringify(document(clientId)),
});

describe("a JSON client metadata document (IndieAuth 2024)", () => {
  it("gives the client's name, page, https logo and redirect URIs, resolved against client_id", async () => {
    const info = await client(
      "/json/app",
      json((id) => ({
        client_id: id,
        client_name: "  Quill \n  the   editor ",
        client_uri: "/about",
        logo_uri: "https://cdn.example/logo.png",
        redirect_uris: [
          "/callback",
          "com.example.app:/cb",
          "https://[unclosed/cb",
          "https://other.example/cb",
        ],
      })),
    );
    assert.deepEqual(info, {
      clientId: `${origin}/json/app`,
      name: "Quill the editor",
      url: `${origin}/about`,
      logo: "https://cdn.example/logo.png",
      redirectUris: [`${origin}/callback`, "com.example.app:/cb", "https://other.example/cb"],
      fetched: true,
    });
  });

  it("is asked for as JSON first, HTML second", async () => {
    await client(
      "/json/accept",
      json((id) => ({ client_id: id })),
    );
    assert.equal(accepts.at(-1), "application/json, text/html;q=0.9");
  });

  it("gives no page, logo or redirect URI it does not name", async () => {
    const info = await client(
      "/json/bare",
      json((id) => ({ client_id: id, client_name: "Bare" })),
    );
    assert.deepEqual(info, {
      clientId: `${origin}/json/bare`,
      name: "Bare",
      url: undefined,
      logo: undefined,
      redirectUris: [],
      fetched: true,
    });
  });

  it("is read whatever the case of its content type", async () => {
    const info = await client("/json/upper", {
      type: "Application/JSON; charset=utf-8",
      body: (id) => JSON.stringify({ client_id: id, redirect_uris: ["https://app.example/cb"] }),
    });
    assert.equal(info.fetched, true);
    assert.deepEqual(info.redirectUris, ["https://app.example/cb"]);
  });

  it("drops a logo that is not https, and a page or logo that is not an http URL", async () => {
    const info = await client(
      "/json/schemes",
      json((id) => ({
        client_id: id,
        client_uri: "javascript:alert(1)",
        logo_uri: "http://cdn.example/l.png",
      })),
    );
    assert.equal(info.fetched, true);
    assert.equal(info.url, undefined);
    assert.equal(info.logo, undefined);
    const data = await client(
      "/json/data-logo",
      json((id) => ({ client_id: id, logo_uri: "data:image/png,x" })),
    );
    assert.equal(data.logo, undefined);
  });

  it("keeps no name made of spaces, and keeps one of 200 characters", async () => {
    const blank = await client(
      "/json/blank",
      json((id) => ({ client_id: id, client_name: "   " })),
    );
    assert.equal(blank.name, undefined);
    const long = await client(
      "/json/long",
      json((id) => ({ client_id: id, client_name: `${"a ".repeat(99)}b` })),
    );
    assert.equal(long.name, `${"a ".repeat(99)}b`);
  });

  it("is not this client's when it names another client_id: none of its redirect URIs is trusted", async () => {
    const info = await client(
      "/json/impostor",
      json(() => ({ client_id: "https://app.example/", redirect_uris: ["https://attacker.example/steal"] })),
    );
    assert.deepEqual(info, { clientId: `${origin}/json/impostor`, redirectUris: [], fetched: false });
  });

  it("is ignored when it is not JSON, or not of the document's shape", async () => {
    for (const [path, body] of [
      ["/json/broken", "{ not json"],
      ["/json/no-id", JSON.stringify({ redirect_uris: ["https://attacker.example/cb"] })],
      [
        "/json/too-many",
        (id: string) => JSON.stringify({ client_id: id, redirect_uris: Array(51).fill(`${id}/cb`) }),
      ],
      ["/json/long-name", (id: string) => JSON.stringify({ client_id: id, client_name: "n".repeat(201) })],
    ] as const) {
      const info = await client(path, { type: "application/json", body });
      assert.deepEqual(info, { clientId: `${origin}${path}`, redirectUris: [], fetched: false }, path);
    }
  });
});

describe("an HTML page with an h-app (IndieAuth 2020)", () => {
  const page = `<!doctype html><html><head>
    <link rel="redirect_uri" href="/callback">
    </head><body>
    <div class="h-app"><a class="u-url p-name" href="/">  My   App </a>
    <img class="u-logo" src="https://cdn.example/logo.png" alt="My App logo"></div>
    </body></html>`;

  it("gives the app's name, page, logo and the redirect URIs its links and Link header name", async () => {
    const info = await client("/html/app", {
      type: "text/html; charset=utf-8",
      body: page,
      link: '</from-header>; rel="redirect_uri other", <https://elsewhere.example/x>; rel=alternate, <app://cb>; REL=redirect_uri',
    });
    assert.equal(info.fetched, true);
    assert.equal(info.name, "My App");
    assert.equal(info.url, `${origin}/`);
    assert.equal(info.logo, "https://cdn.example/logo.png");
    assert.deepEqual(info.redirectUris, [`${origin}/callback`, `${origin}/from-header`, "app://cb"]);
  });

  it("reads a Link header however its rel parameter is spaced, and skips links without one", async () => {
    const info = await client("/html/links", {
      type: "text/html",
      body: '<div class="h-app"><span class="p-name">Linked</span></div>',
      link: '<https://x.example/no-rel>, </tight>;rel=redirect_uri, </spaced> ; rel = "redirect_uri", </other>; rel=me',
    });
    assert.equal(info.fetched, true);
    assert.deepEqual(info.redirectUris, [`${origin}/tight`, `${origin}/spaced`]);
  });

  it("reads a logo given as a plain URL, a name given by a nested item, and an app of two types", async () => {
    const info = await client("/html/plain", {
      type: "text/html",
      body: '<div class="h-app h-product"><span class="p-name h-card">Nested App</span><img class="u-logo" src="https://cdn.example/plain.png"></div>',
    });
    assert.equal(info.fetched, true);
    assert.equal(info.name, "Nested App");
    assert.equal(info.logo, "https://cdn.example/plain.png");
  });

  it("reads the start of a page larger than it fetches", async () => {
    const info = await client("/html/huge", {
      type: "text/html",
      body: `<div class="h-app"><span class="p-name">Huge App</span></div><p>${"x".repeat(300 * 1024)}</p>`,
    });
    assert.equal(info.fetched, true);
    assert.equal(info.name, "Huge App");
  });

  it("reads an h-x-app too, and keeps an http logo out", async () => {
    const info = await client("/html/x-app", {
      type: "text/html",
      body: '<div class="h-x-app"><span class="p-name">Old App</span><img class="u-logo" src="http://cdn.example/l.png"></div>',
    });
    assert.equal(info.fetched, true);
    assert.equal(info.name, "Old App");
    assert.equal(info.logo, undefined);
    assert.deepEqual(info.redirectUris, []);
  });

  it("cuts a long name to 200 characters", async () => {
    const info = await client("/html/long", {
      type: "text/html",
      body: `<div class="h-app"><span class="p-name">${"n".repeat(300)}</span></div>`,
    });
    assert.equal(info.name, "n".repeat(200));
  });

  it("takes no name or logo from another kind of item", async () => {
    const info = await client("/html/card", {
      type: "text/html",
      body: '<div class="h-card"><span class="p-name">Someone</span><img class="u-logo" src="https://cdn.example/l.png"></div>',
    });
    assert.equal(info.fetched, true);
    assert.equal(info.name, undefined);
    assert.equal(info.logo, undefined);
  });
});

describe("a client that cannot be read", () => {
  it("is shown bare, trusted with no redirect URI, when it answers an error", async () => {
    const info = await client("/gone", {
      type: "application/json",
      status: 404,
      body: (id) => JSON.stringify({ client_id: id, redirect_uris: ["https://attacker.example/cb"] }),
    });
    assert.deepEqual(info, { clientId: `${origin}/gone`, redirectUris: [], fetched: false });
  });

  it("is shown bare when its address is private and the policy keeps to public ones", async () => {
    pages.set(
      "/private",
      json((id) => ({ client_id: id, redirect_uris: ["https://attacker.example/cb"] })),
    );
    const info = await fetchClientInfo(`${origin}/private`, {});
    assert.deepEqual(info, { clientId: `${origin}/private`, redirectUris: [], fetched: false });
  });
});
