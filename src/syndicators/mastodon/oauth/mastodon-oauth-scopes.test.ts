import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chooseScopes, ScopeChoiceError } from "./mastodon-oauth-scopes.ts";

describe("The scopes possekit asks a Mastodon instance for", () => {
  it("are the narrowest the instance lists: profile, not read:accounts, and no broad read or write", () => {
    const mastodon44 = [
      "read",
      "write",
      "write:favourites",
      "write:media",
      "write:statuses",
      "read:accounts",
    ].concat(["read:search", "read:statuses", "follow", "push", "profile", "admin:read", "admin:write"]);
    assert.deepEqual(chooseScopes(mastodon44), [
      "profile",
      "write:statuses",
      "write:media",
      "write:favourites",
      "read:statuses",
      "read:search",
    ]);
  });

  it("fall back to read:accounts before Mastodon 4.3, and to the granular scopes without metadata", () => {
    const mastodon42 = [
      "read",
      "write",
      "read:accounts",
      "write:statuses",
      "write:media",
      "write:favourites",
    ].concat(["read:statuses", "read:search"]);
    assert.equal(chooseScopes(mastodon42)[0], "read:accounts");
    assert.deepEqual(chooseScopes(undefined), [
      "read:accounts",
      "write:statuses",
      "write:media",
      "write:favourites",
      "read:statuses",
      "read:search",
    ]);
  });

  it("take the broad scopes where a server lists only those, without granular duplicates", () => {
    assert.deepEqual(chooseScopes(["read", "write", "follow"]), ["read", "write"]);
  });

  it("refuse an instance that offers nothing to post with, naming what is missing", () => {
    assert.throws(
      () => chooseScopes(["read", "profile"]),
      (error: unknown) => error instanceof ScopeChoiceError && /post, edit, delete/.test(error.message),
    );
  });
});
