import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readScopes } from "./scopes.ts";

describe("readScopes", () => {
  it("offers each scope the endpoints check, in one order whatever the order asked", () => {
    assert.deepEqual(readScopes("media draft delete update create"), {
      offered: ["create", "update", "delete", "draft", "media"],
      unknown: [],
    });
    for (const scope of ["create", "update", "delete", "draft", "media"])
      assert.deepEqual(readScopes(scope), { offered: [scope], unknown: [] });
  });

  it("reads the early days' post as create, once", () => {
    assert.deepEqual(readScopes("post"), { offered: ["create"], unknown: [] });
    assert.deepEqual(readScopes("post create"), { offered: ["create"], unknown: [] });
  });

  it("never offers a scope it does not know, and names each once", () => {
    assert.deepEqual(readScopes("profile create email profile CREATE"), {
      offered: ["create"],
      unknown: ["profile", "email", "CREATE"],
    });
    assert.deepEqual(readScopes("toString constructor __proto__"), {
      offered: [],
      unknown: ["toString", "constructor", "__proto__"],
    });
  });

  it("splits on any run of white space and reads nothing from an empty or absent parameter", () => {
    assert.deepEqual(readScopes("  create\t\nupdate  "), { offered: ["create", "update"], unknown: [] });
    assert.deepEqual(readScopes(""), { offered: [], unknown: [] });
    assert.deepEqual(readScopes(undefined), { offered: [], unknown: [] });
  });

  it("names at most the first 20 unknown scopes", () => {
    const asked = Array.from({ length: 25 }, (_, index) => `scope${index}`);
    assert.deepEqual(readScopes(asked.join(" ")).unknown, asked.slice(0, 20));
  });
});
