// An author field's name, never its address, in every way sites write one; and a field of a
// megabyte is no name, at once.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { personName } from "./person-name.ts";

describe("a person's name from an author field", () => {
  const rows: Array<[written: string, name: string | undefined]> = [
    ["jo@example.com (Jo Doe)", "Jo Doe"],
    ["Jo Doe (jo@example.com)", "Jo Doe"],
    ["Jo Doe <jo@example.com>", "Jo Doe"],
    ['"Jo Doe" <jo@example.com>', "Jo Doe"],
    ["<jo@example.com> Jo Doe", "Jo Doe"],
    ["Jo Doe, jo@example.com", "Jo Doe"],
    ["Jo Doe mailto:jo@example.com", "Jo Doe"],
    ["Jo Doe (editor)", "Jo Doe"],
    ["(Jo Doe)", "Jo Doe"],
    ["  Jo \n Doe  ", "Jo Doe"],
    ["jo@example.com", undefined],
    ["mailto:jo@example.com", undefined],
    ["<jo@example.com>", undefined],
    ["jo@example.com (jo@example.com)", undefined],
    ["", undefined],
    ["   ", undefined],
  ];
  it("keeps the name and drops every address", () => {
    const wrong = rows
      .map(([written, name]) => ({ written, name, read: personName(written) }))
      .filter((row) => row.read !== row.name)
      .map(
        (row) =>
          `${JSON.stringify(row.written)} gave ${JSON.stringify(row.read)}, not ${JSON.stringify(row.name)}`,
      );
    assert.deepEqual(wrong, []);
  });

  it("reads a megabyte as no name", () => {
    assert.equal(personName(`${"Jo ".repeat(350_000)}(jo@example.com)`), undefined);
    assert.equal(personName("a@".repeat(500_000)), undefined);
  });
});
