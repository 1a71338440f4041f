// A post as a batch's page read it (decision 0080): the object its claim compares, holding the post's
// status, properties, the page's own words and the thread choices (a part left out would let a claim
// take a post changed in that part); and when a claim that took nothing means the post may have
// changed (read again) rather than that it is busy or had nothing to claim.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { asListed, asListedSql, mayHaveChanged } from "./as-listed.ts";
import type { PreparedClaim } from "./claims.ts";

function claim(asListedText: string | undefined, uids: readonly string[]): PreparedClaim {
  return {
    request: {
      postId: "7",
      holder: "instance",
      runId: null,
      trigger: "batch",
      targets: uids.map((targetUid) => ({ targetUid, idempotencyKey: `key-${targetUid}` })),
      ...(asListedText === undefined ? {} : { asListed: asListedText }),
    },
    uids,
    tokens: new Map(uids.map((uid) => [uid, `token-${uid}`])),
    params: [],
  };
}

describe("a post as its page listed it", () => {
  it("holds the post's status and properties, the page's own words and the thread choices", () => {
    const listed = asListed(
      { status: "published", properties: { content: "Hello", category: ["a"] } },
      {
        pageTexts: new Map([["https://one.example/@me", "My words"]]),
        threadChoices: new Map([["https://two.example/@me", false]]),
      },
    );
    assert.deepEqual(JSON.parse(listed), {
      status: "published",
      properties: { content: "Hello", category: ["a"] },
      texts: { "https://one.example/@me": "My words" },
      threads: { "https://two.example/@me": false },
    });
  });

  it("is built in SQL from the post's row under its alias, with the same four parts", () => {
    const sql = asListedSql("p");
    for (const part of [
      "'status', p.status",
      "'properties', p.properties",
      "'texts'",
      "syndication_texts AS s WHERE s.post_id = p.id",
      "'threads'",
      "syndication_thread_choices AS c WHERE c.post_id = p.id",
    ])
      assert.ok(sql.includes(part), `${part} in ${sql}`);
  });
});

describe("a claim that took nothing", () => {
  const took = new Map([["https://one.example/@me", {}]]);
  it("made from a page, of some targets: the post may have changed", () => {
    assert.equal(mayHaveChanged(claim("{}", ["https://one.example/@me"]), new Map()), true);
  });
  it("not made from a page: it never is", () => {
    assert.equal(mayHaveChanged(claim(undefined, ["https://one.example/@me"]), new Map()), false);
  });
  it("of no target: it never is", () => {
    assert.equal(mayHaveChanged(claim("{}", []), new Map()), false);
  });
  it("a claim that took a target: the post was as listed", () => {
    assert.equal(mayHaveChanged(claim("{}", ["https://one.example/@me"]), took), false);
  });
});
