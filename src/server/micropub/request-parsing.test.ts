import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../../contract/http-error.ts";
import { readMicropubRequest } from "./micropub-request.ts";

/** The request as plain data: the reader keeps a client's keys in null-prototype objects. */
const read = (...args: Parameters<typeof readMicropubRequest>) =>
  JSON.parse(JSON.stringify(readMicropubRequest(...args))) as ReturnType<typeof readMicropubRequest>;

const invalidRequest = (pattern: RegExp) => (error: unknown) =>
  error instanceof HttpError &&
  error.status === 400 &&
  error.error === "invalid_request" &&
  pattern.test(error.description);

describe("reading Micropub requests", () => {
  it("reads a form as the extended parser yields it", () => {
    const request = read("form", {
      h: "entry",
      content: "Hello",
      category: ["a", "b"],
      "mp-syndicate-to": "https://social.example/@me",
      "mp-slug": "hello",
      photo: { value: "https://example.org/a.jpg", alt: "Alt" },
      _csrf: "session-field",
    });
    assert.deepEqual(request, {
      action: "create",
      type: ["h-entry"],
      slug: "hello",
      properties: {
        content: ["Hello"],
        category: ["a", "b"],
        "mp-syndicate-to": ["https://social.example/@me"],
        photo: [{ value: "https://example.org/a.jpg", alt: "Alt" }],
      },
    });
  });

  it("reads a form as a simple parser yields it (keys ending in [])", () => {
    const request = read("form", {
      "category[]": ["a", "b"],
      "mp-syndicate-to[]": "x",
      content: "c",
    });
    assert.deepEqual(request, {
      action: "create",
      type: ["h-entry"],
      properties: { category: ["a", "b"], "mp-syndicate-to": ["x"], content: ["c"] },
    });
  });

  it("drops mp-* commands other than mp-syndicate-to, and never keeps an access token", () => {
    const request = read("json", {
      type: ["h-entry"],
      properties: { content: ["x"], "mp-destination": ["y"], access_token: ["secret"] },
    });
    assert.deepEqual(request, { action: "create", type: ["h-entry"], properties: { content: ["x"] } });
  });

  it("accepts mp-syndicate-to as a plain string in JSON", () => {
    const request = read("json", {
      type: ["h-entry"],
      properties: { "mp-syndicate-to": "x" },
    });
    assert.deepEqual(request, {
      action: "create",
      type: ["h-entry"],
      properties: { "mp-syndicate-to": ["x"] },
    });
  });

  it("reads delete and undelete from a form and from JSON", () => {
    assert.deepEqual(read("form", { action: "delete", url: "u" }), {
      action: "delete",
      url: "u",
    });
    assert.deepEqual(read("json", { action: "undelete", url: "u" }), {
      action: "undelete",
      url: "u",
    });
  });

  it("reads an update with replace, add and delete", () => {
    const request = read("json", {
      action: "update",
      url: "u",
      replace: { content: ["new"] },
      add: { category: ["c"] },
      delete: ["photo"],
    });
    assert.deepEqual(request, {
      action: "update",
      url: "u",
      replace: { content: ["new"] },
      add: { category: ["c"] },
      delete: ["photo"],
    });
  });

  it("refuses malformed updates with invalid_request", () => {
    const update = (extra: Record<string, unknown>) => () =>
      readMicropubRequest("json", { action: "update", url: "u", ...extra });
    assert.throws(update({ replace: "This is not a valid update request." }), invalidRequest(/malformed/));
    assert.throws(update({ add: { category: "not a list" } }), invalidRequest(/array/));
    assert.throws(update({ delete: "category" }), invalidRequest(/delete must list/));
    assert.throws(update({}), invalidRequest(/needs replace, add or delete/));
    assert.throws(
      () => readMicropubRequest("json", { action: "update", replace: {} }),
      invalidRequest(/url/),
    );
  });

  it("refuses an update sent as a form, unknown actions and actions without a url", () => {
    assert.throws(
      () => readMicropubRequest("form", { action: "update", url: "u" }),
      invalidRequest(/as JSON/),
    );
    assert.throws(
      () => readMicropubRequest("form", { action: "publish", url: "u" }),
      invalidRequest(/Unknown action/),
    );
    assert.throws(() => readMicropubRequest("form", { action: "delete" }), invalidRequest(/needs url/));
    assert.throws(
      () => readMicropubRequest("json", { action: "explode", url: "u" }),
      invalidRequest(/Unknown action/),
    );
  });

  it("refuses a JSON create without a proper type or properties", () => {
    assert.throws(
      () => readMicropubRequest("json", { type: "h-entry", properties: {} }),
      invalidRequest(/type/),
    );
    assert.throws(() => readMicropubRequest("json", { type: ["h-entry"] }), invalidRequest(/properties/));
    assert.throws(() => readMicropubRequest("json", ["h-entry"]), invalidRequest(/must be an object/));
  });
});
