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

  it("are read write on Pixelfed, whatever it lists: it checks only tokenCan('read') and tokenCan('write')", () => {
    assert.deepEqual(chooseScopes(undefined, "pixelfed"), ["read", "write"]);
    assert.deepEqual(chooseScopes(["read", "write", "follow", "push", "profile"], "pixelfed"), [
      "read",
      "write",
    ]);
  });

  it("are discovered on GoToSocial, Akkoma and Pleroma, and fall back to read write when unknown", () => {
    for (const software of ["gotosocial", "akkoma", "pleroma"] as const) {
      assert.deepEqual(chooseScopes(undefined, software), ["read", "write"], `${software}: no list`);
      assert.deepEqual(chooseScopes(["read", "write", "follow"], software), ["read", "write"]);
      // A list that misses a need is not a refusal there: the coarse scopes cover every need.
      assert.deepEqual(chooseScopes(["read:accounts", "write:statuses", "push"], software), [
        "read",
        "write",
      ]);
      assert.deepEqual(
        chooseScopes(
          [
            "read:accounts",
            "write:statuses",
            "write:media",
            "write:favourites",
            "read:statuses",
            "read:search",
          ],
          software,
        ),
        [
          "read:accounts",
          "write:statuses",
          "write:media",
          "write:favourites",
          "read:statuses",
          "read:search",
        ],
      );
    }
    assert.throws(() => chooseScopes(["read:accounts", "push"], "mastodon"), ScopeChoiceError);
  });
});
