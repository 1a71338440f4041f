// How a client finds the IndieAuth server (IndieAuth §4.1): the home page links to the metadata
// document (Link header and <link>), and names the authorization and token endpoints for clients
// older than the metadata document. The document lists every endpoint and says PKCE is S256 only.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mf2 } from "microformats-parser";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** rel → href of a Link header, read as RFC 8288 says (no library of ours in between). */
function linkRels(header: string | null): Map<string, string> {
  const rels = new Map<string, string>();
  for (const part of (header ?? "").split(/,\s*(?=<)/)) {
    const match = /^<([^>]+)>;\s*rel="([^"]+)"$/.exec(part.trim());
    if (match) for (const rel of (match[2] as string).split(" ")) rels.set(rel, match[1] as string);
  }
  return rels;
}

describe("IndieAuth discovery from the home page", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: false, config: { plugins: [] } });
  });
  after(() => server.close());

  it("links the metadata and both endpoints in the Link header and in the HTML", async () => {
    const response = await fetch(`${server.url}/`, { headers: { accept: "text/html" } });
    const header = linkRels(response.headers.get("link"));
    const html = mf2(await response.text(), { baseUrl: `${server.url}/` }).rels;
    const expected = {
      "indieauth-metadata": `${server.url}/.well-known/oauth-authorization-server`,
      authorization_endpoint: `${server.url}/auth`,
      token_endpoint: `${server.url}/auth/token`,
      micropub: `${server.url}/micropub`,
    };
    for (const [rel, href] of Object.entries(expected)) {
      assert.equal(header.get(rel), href, `Link rel=${rel}`);
      assert.deepEqual(html[rel], [href], `<link rel=${rel}>`);
    }
  });

  it("serves the metadata document with every endpoint, S256 only and the iss parameter", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(metadata, {
      issuer: `${server.url}/`,
      authorization_endpoint: `${server.url}/auth`,
      token_endpoint: `${server.url}/auth/token`,
      revocation_endpoint: `${server.url}/auth/revoke`,
      revocation_endpoint_auth_methods_supported: ["none"],
      introspection_endpoint: `${server.url}/auth/introspect`,
      introspection_endpoint_auth_methods_supported: ["Bearer"],
      scopes_supported: ["create", "update", "delete", "draft", "media"],
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    // The issuer is a prefix of the metadata URL (IndieAuth §4.1.1).
    assert.ok(response.url.startsWith(metadata.issuer as string));
  });
});
