// Decision 0041: one package, two hosts. Under a host that offers only what Indiekit's
// contract promises (addEndpoint, its endpoints so far, its publication), init() adds the endpoint
// and touches nothing else; a mountPath another endpoint holds is refused with one line saying what
// to write; the name tells ours from Indiekit's own endpoint; Indiekit's session scope is the
// request's credential; our errors carry the code and the name Indiekit's error handler reads.
// The same against the real Indiekit: interop/indiekit/.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Request } from "express";
import { HttpError, notFound } from "../../contract/http-error.ts";
import { type EndpointPlugin, type IndiekitServer, isPossekitServer } from "../../contract/plugin.ts";
import { EndpointSyndicate, PACKAGE_NAME } from "../endpoint-syndicate.ts";
import { mountPathClash } from "./mount-path-clash.ts";
import { authenticatedByIndiekit } from "./session-auth.ts";
import { catalogLocale } from "./translator.ts";

/** What Indiekit's host object has when it calls a plug-in's init (packages/indiekit/index.js). */
function indiekitLikeHost(endpoints: Array<{ id?: string; name?: string; mountPath: string }> = []) {
  const added: EndpointPlugin[] = [];
  const host = {
    endpoints: new Set(endpoints),
    publication: { me: "https://blog.example/" },
    addEndpoint(endpoint: EndpointPlugin) {
      added.push(endpoint);
      host.endpoints.add(endpoint);
    },
    addCollection() {},
    addPostType() {},
    addPreset() {},
    addStore() {},
    addSyndicator() {},
  };
  return { host: host satisfies IndiekitServer, added };
}

const INDIEKIT_OWN = {
  id: "@indiekit-endpoint-syndicate",
  name: "Syndication endpoint",
  mountPath: "/syndicate",
};

describe("the plug-in under Indiekit's host", () => {
  it("is not taken for possekit's host, which offers views, locales and the rest", () => {
    assert.equal(isPossekitServer(indiekitLikeHost().host), false);
  });

  it("adds its endpoint with addEndpoint alone, where it crashed on addViews before", () => {
    const { host, added } = indiekitLikeHost();
    const plugin = new EndpointSyndicate({ mountPath: "/posse" });
    plugin.init(host);
    assert.deepEqual(added, [plugin]);
    assert.equal(plugin.syndication, null, "no core without possekit's database");
  });

  it("has a name that is not Indiekit's own endpoint's", () => {
    const ours = new EndpointSyndicate();
    assert.notEqual(ours.name, INDIEKIT_OWN.name);
    assert.match(ours.name, /possekit/);
  });

  it("says in one line that /syndicate is Indiekit's own endpoint's, and what to write", () => {
    const line = mountPathClash([INDIEKIT_OWN], "/syndicate", PACKAGE_NAME);
    assert.ok(line);
    assert.doesNotMatch(line, /\n/);
    assert.match(line, /mountPath "\/syndicate" is already served by @indiekit-endpoint-syndicate/);
    assert.match(line, /"@possekit\/endpoint-syndicate": \{ mountPath: "\/posse" \}/);
  });

  it("counts /syndicate/ and /Syndicate as the same path, and lets another path be", () => {
    assert.ok(mountPathClash([INDIEKIT_OWN], "/Syndicate/", PACKAGE_NAME));
    assert.equal(mountPathClash([INDIEKIT_OWN], "/posse", PACKAGE_NAME), undefined);
    assert.equal(mountPathClash(undefined, "/syndicate", PACKAGE_NAME), undefined);
    const suggested = mountPathClash([{ mountPath: "/posse" }], "/posse", PACKAGE_NAME);
    assert.match(suggested ?? "", /mountPath: "\/posse-syndicate"/, "never suggests the taken path");
  });

  it("reads the scope Indiekit keeps in its session, literally, whichever way the token came", () => {
    const request = (parts: Partial<Request> & { session?: unknown }) =>
      ({ headers: {}, query: {}, ...parts }) as unknown as Request;
    const bearer = authenticatedByIndiekit(
      request({
        headers: { authorization: "Bearer x" },
        session: { access_token: "token-1", scope: "create  update" },
      }),
      "https://blog.example/",
    );
    assert.deepEqual(bearer?.scope, ["create", "update"]);
    assert.equal(bearer?.method, "bearer");
    assert.equal(bearer?.me, "https://blog.example/");
    assert.doesNotMatch(bearer?.credentialId ?? "", /token-1/, "the token itself is not the id");
    const query = authenticatedByIndiekit(
      request({ query: { token: "t" }, session: { access_token: "t", scope: "media" } }),
      "https://blog.example/",
    );
    assert.equal(query?.method, "query");
    const cookie = authenticatedByIndiekit(
      request({ session: { access_token: "t", scope: "media" } }),
      "https://blog.example/",
    );
    assert.notEqual(cookie?.method, "session", "never possekit's all-scopes session");
    assert.equal(authenticatedByIndiekit(request({ session: {} }), "https://blog.example/"), undefined);
    assert.equal(authenticatedByIndiekit(request({}), "https://blog.example/"), undefined);
  });

  it("answers in the language Indiekit chose, its base language, or English", () => {
    assert.equal(catalogLocale(["de", "en", "fr"], "fr"), "fr");
    assert.equal(catalogLocale(["de", "en", "fr"], "de-AT"), "de");
    assert.equal(catalogLocale(["de", "en", "fr"], "pt-BR"), "en");
    assert.equal(catalogLocale(["de", "en", "fr"], undefined), "en");
  });

  it("throws errors carrying the code and the name Indiekit's error handler reads", () => {
    const missing = notFound("No post exists at https://blog.example/1");
    assert.equal(missing.code, "not_found");
    assert.equal(missing.name, "NotFoundError");
    const noDatabase = new HttpError(501, "not_implemented", "x");
    assert.equal(noDatabase.name, "NotImplementedError");
    assert.equal(new HttpError(409, "conflict", "x").name, "HttpError");
  });
});
