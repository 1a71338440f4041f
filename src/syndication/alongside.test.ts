// Statements of the core joined into one (decisions 0068 and 0075): each part's expressions in turn,
// its parameters numbered on from the part before it, and one json object holding each part's
// `returning` under its name, read back by name whichever way the driver hands a json value over. A
// slip would give a part another part's parameters, or read one part's answer as another's.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AlongsideStatement } from "../contract/post-source.ts";
import { joined, jsonValue, partOf, together } from "./alongside.ts";

/** A part whose expression names each of its parameters by number, so that the numbering shows. */
function part(name: string, params: unknown[]): AlongsideStatement {
  return {
    params,
    with: (first) => `${name} AS (SELECT ${params.map((_, i) => `$${first + i}`).join(", ")})`,
    returning: `(SELECT json_agg(${name}) FROM ${name})`,
  };
}

describe("statements joined into one", () => {
  it("numbers each part's parameters on from the part before it, in the order given", () => {
    const statement = joined({ outcomes: part("o", ["a", "b"]), claims: part("c", ["x", "y", "z"]) });
    assert.deepEqual(statement.params, ["a", "b", "x", "y", "z"]);
    assert.equal(statement.with(4), "o AS (SELECT $4, $5), c AS (SELECT $6, $7, $8)");
    assert.equal(
      statement.with(1),
      "o AS (SELECT $1, $2), c AS (SELECT $3, $4, $5)",
      "again, from another first",
    );
  });

  it("returns one json object holding each part's answer under its name", () => {
    const statement = joined({ outcomes: part("o", [1]), claims: part("c", []) });
    assert.equal(
      statement.returning,
      "json_build_object('outcomes', (SELECT json_agg(o) FROM o), 'claims', (SELECT json_agg(c) FROM c))",
    );
  });

  it("puts another statement's expressions after the main one's, its parameters numbered on", () => {
    const main = part("m", [1, 2]);
    const statement = together(main, part("e", [3]));
    assert.deepEqual(statement.params, [1, 2, 3]);
    assert.equal(statement.with(2), "m AS (SELECT $2, $3), e AS (SELECT $4)");
    assert.equal(statement.returning, main.returning);
    assert.equal(together(main, undefined), main);
  });
});

describe("a joined statement's answer", () => {
  const answer = { outcomes: [{ uid: "one" }], claims: null };
  for (const [driver, value] of [
    ["parsed already", answer],
    ["as text", JSON.stringify(answer)],
  ] as const)
    it(`is read part by part when the driver hands it over ${driver}`, () => {
      assert.deepEqual(partOf(value, "outcomes"), [{ uid: "one" }]);
      assert.equal(partOf(value, "claims"), null);
      assert.equal(partOf(value, "absent"), null, "a part not in the answer reads as nothing");
      assert.deepEqual(jsonValue(value), answer);
    });

  it("reads nothing from no answer", () => {
    assert.equal(partOf(null, "outcomes"), null);
    assert.equal(jsonValue(null), null);
  });
});
