import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { detectSoftware, softwareFrom } from "./mastodon-software.ts";

const origin = "https://social.example";
const nodeInfoAt = (href: string) => ({
  links: [{ rel: "http://nodeinfo.diaspora.software/ns/schema/2.0", href }],
});

/** A server answering these documents, and a record of what was asked. */
function server(documents: Record<string, unknown>) {
  const asked: string[] = [];
  const getJson = async (url: string) => {
    asked.push(url);
    return documents[url];
  };
  return { asked, getJson };
}

describe("Which software speaks Mastodon's API at an instance", () => {
  it("reads the version's 'compatible' name, and NodeInfo's software name", () => {
    assert.equal(softwareFrom("3.5.3 (compatible; Pixelfed 0.12.4)"), "pixelfed");
    assert.equal(softwareFrom("2.7.2 (compatible; Akkoma 3.13.2)"), "akkoma");
    assert.equal(softwareFrom("2.7.2 (compatible; Pleroma 2.6.0)"), "pleroma");
    assert.equal(softwareFrom("gotosocial"), "gotosocial");
    assert.equal(softwareFrom("4.4.0"), undefined);
    assert.equal(softwareFrom("4.4.0 (compatible; Friendica 2024.12)"), undefined);
  });

  it("asks NodeInfo first: GoToSocial's version is a bare number", async () => {
    const { getJson } = server({
      [`${origin}/.well-known/nodeinfo`]: nodeInfoAt(`${origin}/nodeinfo/2.0`),
      [`${origin}/nodeinfo/2.0`]: { software: { name: "gotosocial", version: "0.20.0" } },
      [`${origin}/api/v1/instance`]: { version: "0.20.0" },
    });
    assert.equal(await detectSoftware(origin, getJson), "gotosocial");
  });

  it("falls back to /api/v1/instance, and to Mastodon when nothing names another server", async () => {
    const pixelfed = server({
      [`${origin}/api/v1/instance`]: { version: "3.5.3 (compatible; Pixelfed 0.12.4)" },
    });
    assert.equal(await detectSoftware(origin, pixelfed.getJson), "pixelfed");
    const silent = server({});
    assert.equal(await detectSoftware(origin, silent.getJson), "mastodon");
  });

  it("never follows a NodeInfo link to another site", async () => {
    const elsewhere = "https://elsewhere.example/nodeinfo/2.0";
    const { asked, getJson } = server({
      [`${origin}/.well-known/nodeinfo`]: nodeInfoAt(elsewhere),
      [elsewhere]: { software: { name: "pixelfed" } },
    });
    assert.equal(await detectSoftware(origin, getJson), "mastodon");
    assert.ok(!asked.includes(elsewhere));
  });
});
