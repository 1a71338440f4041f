import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatIssues, OptionsError } from "../../contract/options/options-error.ts";
import { parseEndpointOptions } from "../options.ts";

const parseCopies = (value: unknown) => parseEndpointOptions({ copies: value }).copies;

function problemsOf(value: unknown): string[] {
  try {
    parseCopies(value);
  } catch (error) {
    assert.ok(error instanceof OptionsError);
    return formatIssues(error.issues);
  }
  assert.fail(`${JSON.stringify(value)} should have been refused`);
}

describe("the plug-in's copies options", () => {
  it("default to 120 requests a minute per address", () => {
    assert.deepEqual(parseCopies(undefined), { limit: 120, windowMs: 60_000 });
    assert.deepEqual(parseCopies({ limit: 10 }), { limit: 10, windowMs: 60_000 });
  });

  it("name the option and say what to write, one line per mistake", () => {
    assert.deepEqual(problemsOf({ limit: 0 }).length, 1);
    assert.match(
      problemsOf({ limit: "many" })[0] ?? "",
      /^copies\.limit: must be a whole number .* such as 120/,
    );
    assert.match(problemsOf({ windowMs: 10 })[0] ?? "", /^copies\.windowMs: must be .* such as 60000/);
    assert.match(
      problemsOf({ limt: 5 })[0] ?? "",
      /^copies: has unknown option limt; the copies options are limit and windowMs/,
    );
    assert.match(problemsOf(true)[0] ?? "", /^copies: must be an object, such as \{ limit: 120/);
  });
});
