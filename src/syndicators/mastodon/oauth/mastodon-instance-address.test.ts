import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InstanceAddressError, parseInstanceAddress } from "./mastodon-instance-address.ts";

describe("The instance the owner types", () => {
  it("is found from a name, a URL of any page, or a handle", () => {
    assert.deepEqual(parseInstanceAddress("mastodon.social"), { origin: "https://mastodon.social" });
    assert.deepEqual(parseInstanceAddress("  Mastodon.Social  "), { origin: "https://mastodon.social" });
    assert.deepEqual(parseInstanceAddress("https://mastodon.social/@alice/123?x=1#y"), {
      origin: "https://mastodon.social",
    });
    assert.deepEqual(parseInstanceAddress("http://127.0.0.1:4000/"), { origin: "http://127.0.0.1:4000" });
    assert.deepEqual(parseInstanceAddress("@alice@example.social"), {
      origin: "https://example.social",
      user: "alice",
    });
    assert.deepEqual(parseInstanceAddress("alice@example.social"), {
      origin: "https://example.social",
      user: "alice",
    });
  });

  it("refuses what names no instance, saying what to type", () => {
    for (const input of [
      "",
      "   ",
      "not an instance",
      "ftp://mastodon.social",
      "javascript:alert(1)",
      "https://user:pass@mastodon.social",
      "@alice",
      "-bad-.example",
      `${"a".repeat(300)}.social`,
    ]) {
      assert.throws(
        () => parseInstanceAddress(input),
        (error: unknown) =>
          error instanceof InstanceAddressError &&
          error.key === "accounts.oauth.error.instance" &&
          /mastodon\.social/.test(error.message),
        input,
      );
    }
  });
});
