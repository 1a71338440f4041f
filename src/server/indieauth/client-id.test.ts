import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isLoopbackHost, parseClientId, parseRedirectUri, sameOrigin } from "./client-id.ts";

/** The URL's href when accepted, or the reason when refused: one value to compare. */
const clientId = (value: string) => {
  const parsed = parseClientId(value);
  return typeof parsed === "string" ? parsed : parsed.href;
};
const redirectUri = (value: string) => {
  const parsed = parseRedirectUri(value);
  return typeof parsed === "string" ? parsed : parsed.href;
};
const url = (value: string) => new URL(value);

describe("client_id (IndieAuth §3.2)", () => {
  it("accepts an https URL, and http only on a loopback address", () => {
    assert.equal(clientId("https://app.example/"), "https://app.example/");
    assert.equal(clientId("https://app.example/client?x=1"), "https://app.example/client?x=1");
    for (const loopback of ["http://localhost:3000/", "http://127.0.0.1/", "http://[::1]:8080/"])
      assert.equal(clientId(loopback), loopback);
  });

  it("refuses http on a public host, and other schemes, saying https is needed", () => {
    const reason = "client_id must be an https URL (http only on a loopback address such as 127.0.0.1)";
    assert.equal(clientId("http://app.example/"), reason);
    assert.equal(clientId("ftp://app.example/"), reason);
    assert.equal(clientId("javascript:alert(1)"), reason);
    // A loopback name does not make another scheme acceptable.
    assert.equal(clientId("ftp://localhost/"), reason);
  });

  it("refuses what is not an absolute URL", () => {
    assert.equal(clientId("app.example"), "client_id must be an absolute URL, e.g. https://app.example/");
    assert.equal(clientId("/client"), "client_id must be an absolute URL, e.g. https://app.example/");
  });

  it("refuses a URL of more than 2048 characters, and takes one of exactly 2048", () => {
    const base = "https://app.example/";
    const longest = base + "a".repeat(2048 - base.length);
    assert.equal(clientId(longest), longest);
    assert.equal(clientId(`${longest}a`), "client_id is longer than 2048 characters");
  });

  it("refuses a fragment, even an empty one", () => {
    assert.equal(clientId("https://app.example/#me"), "client_id must not contain a fragment");
    assert.equal(clientId("https://app.example/#"), "client_id must not contain a fragment");
  });

  it("refuses a user name or a password", () => {
    assert.equal(clientId("https://user@app.example/"), "client_id must not contain a user name or password");
    assert.equal(
      clientId("https://:secret@app.example/"),
      "client_id must not contain a user name or password",
    );
  });

  it("refuses . and .. path segments wherever they are, and takes dots inside a segment", () => {
    const reason = "client_id must not contain . or .. path segments";
    for (const dotted of [
      "https://app.example/./",
      "https://app.example/../",
      "https://app.example/a/..",
      "https://app.example/a/.",
      "https://app.example/a/..?x=1",
      "https://app.example/a/./b",
    ])
      assert.equal(clientId(dotted), reason, dotted);
    for (const plain of [
      "https://app.example/.well-known/app",
      "https://app.example/a..b/",
      "https://app.example/v1.2",
    ])
      assert.equal(clientId(plain), plain);
    // The host's own dots are not path segments.
    assert.equal(clientId("https://app.example.org/"), "https://app.example.org/");
  });

  it("refuses an IP address other than a loopback one, for IPv4 and IPv6", () => {
    const reason = "client_id must name a host by its domain name (of IP addresses only 127.0.0.1 and [::1])";
    assert.equal(clientId("https://192.0.2.1/"), reason);
    assert.equal(clientId("https://10.0.0.1/"), reason);
    // Octets of two and three digits after the first, as most public addresses have.
    assert.equal(clientId("https://203.0.113.55/"), reason);
    assert.equal(clientId("https://127.0.0.2/"), reason);
    assert.equal(clientId("https://[2001:db8::1]/"), reason);
    assert.equal(clientId("https://127.0.0.1/"), "https://127.0.0.1/");
    assert.equal(clientId("https://[::1]/"), "https://[::1]/");
    // A name that merely starts with digits is a domain name.
    assert.equal(clientId("https://1.2.3.example/"), "https://1.2.3.example/");
    assert.equal(clientId("https://1.2.3.4.example/"), "https://1.2.3.4.example/");
  });
});

describe("redirect_uri", () => {
  it("accepts an absolute URL, a native app's own scheme too", () => {
    assert.equal(redirectUri("https://app.example/callback"), "https://app.example/callback");
    assert.equal(redirectUri("com.example.app:/callback"), "com.example.app:/callback");
  });

  it("refuses what is not an absolute URL, or is longer than 2048 characters", () => {
    assert.equal(redirectUri("/callback"), "redirect_uri must be an absolute URL");
    const base = "https://app.example/";
    const longest = base + "a".repeat(2048 - base.length);
    assert.equal(redirectUri(longest), longest);
    assert.equal(redirectUri(`${longest}a`), "redirect_uri is longer than 2048 characters");
  });

  it("refuses a fragment, even an empty one", () => {
    assert.equal(redirectUri("https://app.example/cb#x"), "redirect_uri must not contain a fragment");
    assert.equal(redirectUri("https://app.example/cb#"), "redirect_uri must not contain a fragment");
  });

  it("refuses every scheme that would run or read something in the owner's browser", () => {
    for (const [uri, scheme] of [
      ["javascript:alert(document.cookie)", "javascript:"],
      ["data:text/html,<script>alert(1)</script>", "data:"],
      ["file:///etc/passwd", "file:"],
      ["vbscript:msgbox(1)", "vbscript:"],
      ["blob:https://app.example/0b2f", "blob:"],
    ] as const)
      assert.equal(redirectUri(uri), `redirect_uri must not be a ${scheme} URL`, uri);
  });
});

describe("sameOrigin: a redirect URI the client needs not list", () => {
  it("is the client's scheme, host and port", () => {
    assert.equal(sameOrigin(url("https://app.example/cb"), url("https://app.example/")), true);
    assert.equal(sameOrigin(url("https://app.example:8443/cb"), url("https://app.example:8443/")), true);
  });

  it("is not another scheme, another host, or another port", () => {
    assert.equal(sameOrigin(url("http://app.example/cb"), url("https://app.example/")), false);
    assert.equal(sameOrigin(url("https://evil.example/cb"), url("https://app.example/")), false);
    assert.equal(sameOrigin(url("https://app.example.evil.example/cb"), url("https://app.example/")), false);
    assert.equal(sameOrigin(url("https://app.example:8443/cb"), url("https://app.example/")), false);
  });
});

describe("loopback hosts", () => {
  it("are localhost, 127.0.0.1 and [::1], nothing else", () => {
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ["localhost.example", "127.0.0.2", "::1", "example.com"])
      assert.equal(isLoopbackHost(host), false, host);
  });
});
