import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  micropubDeleteBody,
  micropubErrorWords,
  micropubHeaders,
  micropubQueryUrl,
  micropubUpdateBody,
} from "./micropub-wire.ts";

describe("requests to a Micropub endpoint", () => {
  it("carry the token as a bearer credential, ask for JSON and name the body's type", () => {
    assert.deepEqual(micropubHeaders("t0k"), { accept: "application/json", authorization: "Bearer t0k" });
    assert.deepEqual(micropubHeaders("t0k", "application/json")["content-type"], "application/json");
  });

  it("query with q= beside the endpoint's own query", () => {
    assert.equal(
      micropubQueryUrl("https://wp.example/?micropub=endpoint", { q: "source", url: "https://wp.example/1" }),
      "https://wp.example/?micropub=endpoint&q=source&url=https%3A%2F%2Fwp.example%2F1",
    );
  });

  it("update with a JSON action naming the post, and delete with a form", () => {
    assert.deepEqual(
      JSON.parse(
        micropubUpdateBody("https://site.example/1", { add: { syndication: ["https://copy.example/9"] } }),
      ),
      { action: "update", url: "https://site.example/1", add: { syndication: ["https://copy.example/9"] } },
    );
    assert.equal(
      micropubDeleteBody("https://site.example/1?a=b"),
      "action=delete&url=https%3A%2F%2Fsite.example%2F1%3Fa%3Db",
    );
  });
});

describe("micropubErrorWords", () => {
  it("prefers error_description, then message, then the error code, and keeps the code", () => {
    assert.deepEqual(micropubErrorWords({ error: "invalid_request", error_description: "no such post" }), {
      message: "no such post",
      code: "invalid_request",
    });
    assert.deepEqual(micropubErrorWords({ message: "quota reached" }), { message: "quota reached" });
    assert.deepEqual(micropubErrorWords({ error: "forbidden" }), { message: "forbidden", code: "forbidden" });
  });

  it("is undefined for a body of another shape", () => {
    assert.equal(micropubErrorWords([1, 2]), undefined);
    assert.equal(micropubErrorWords({ error: 42 }), undefined);
  });
});
