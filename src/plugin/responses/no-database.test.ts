import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../../contract/http-error.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import { syndicationOr501 } from "./no-database.ts";

function refusal(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error;
  }
  return assert.fail("no error");
}

describe("syndicationOr501", () => {
  it("hands over the core when there is one", () => {
    const core = {} as Syndication;
    assert.equal(syndicationOr501({ syndication: () => core }), core);
  });

  it("answers 501 not_implemented saying what needs the database", () => {
    const error = refusal(() => syndicationOr501({ syndication: () => null }));
    assert.deepEqual(
      [error.status, error.error, error.description],
      [501, "not_implemented", "Syndication needs a database; this server runs without one"],
    );
    const copies = refusal(() => syndicationOr501({ syndication: () => null }, "Copies need a database"));
    assert.equal(copies.description, "Copies need a database");
  });
});
