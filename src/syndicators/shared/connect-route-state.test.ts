import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Request, Response } from "express";
import { z } from "zod";
import type { Flash } from "../../contract/flash.ts";
import { HttpError } from "../../contract/http-error.ts";
import {
  callbackQuery,
  onlyTheOwner,
  ownerSession,
  saidNo,
  takeCallbackState,
  translatorOf,
} from "./connect-route-state.ts";

const signedIn = (query: Record<string, unknown> = {}) =>
  ({ auth: { method: "session", credentialId: "session:abc" }, query }) as unknown as Request;
const withToken = (query: Record<string, unknown> = {}) =>
  ({ auth: { method: "bearer", credentialId: "token:abc" }, query }) as unknown as Request;

/** Runs `action` and hands back the HttpError it threw (or rejected with). */
async function refusal(action: () => unknown): Promise<HttpError> {
  const error = await Promise.resolve()
    .then(action)
    .then(
      () => assert.fail("expected a refusal"),
      (reason: unknown) => reason,
    );
  assert.ok(error instanceof HttpError, String(error));
  return error;
}

describe("a connect route's session and state", () => {
  it("belongs to the signed-in owner's session; an access token, whatever its scopes, is refused (403)", async () => {
    assert.equal(ownerSession(signedIn()), "abc");
    for (const req of [withToken(), {} as Request]) {
      const error = await refusal(() => ownerSession(req));
      assert.equal(error.status, 403);
      assert.equal(error.pageMessage?.key, "accounts.oauth.sessionOnly");
    }
    const passed: unknown[] = [];
    onlyTheOwner(signedIn(), {} as Response, (error?: unknown) => passed.push(error));
    onlyTheOwner(withToken(), {} as Response, (error?: unknown) => passed.push(error));
    assert.equal(passed[0], undefined);
    assert.ok(passed[1] instanceof HttpError && passed[1].status === 403);
  });

  it("takes the callback's state for this session and hands on what was kept and every parameter sent", async () => {
    const asked: Array<[string, string]> = [];
    const query = callbackQuery.extend({ error_description: z.string().max(50).optional() });
    const taken = await takeCallbackState(
      signedIn({ state: "s1", code: "c1" }),
      query,
      async (state, session) => {
        asked.push([state, session]);
        return { verifier: "v" };
      },
    );
    assert.deepEqual(asked, [["s1", "abc"]]);
    assert.deepEqual(taken.kept, { verifier: "v" });
    assert.equal(taken.state, "s1");
    assert.equal(taken.params.toString(), "state=s1&code=c1");
  });

  it("refuses (400) a state the store does not know, and a query that does not parse before asking it", async () => {
    let asked = 0;
    const take = async () => {
      asked += 1;
      return undefined;
    };
    const unknown = await refusal(() => takeCallbackState(signedIn({ state: "gone" }), callbackQuery, take));
    assert.equal(unknown.status, 400);
    assert.equal(unknown.pageMessage?.key, "accounts.oauth.stateRefused");
    assert.equal(asked, 1);
    for (const query of [{ state: "x".repeat(201) }, { state: ["a", "b"] }]) {
      const error = await refusal(() => takeCallbackState(signedIn(query), callbackQuery, take));
      assert.equal(error.status, 400);
    }
    const token = await refusal(() => takeCallbackState(withToken({ state: "s" }), callbackQuery, take));
    assert.equal(token.status, 403);
    assert.equal(asked, 1);
  });

  it("says on the Accounts page that the owner said no, in the page's words", () => {
    const flashes: Flash[] = [];
    let redirected: unknown[] = [];
    const res = {
      locals: {
        setFlash: (flash: Flash) => flashes.push(flash),
        t: (key: string, values: Record<string, string>) => `${key}:${values.instance}`,
      },
      redirect: (...args: unknown[]) => {
        redirected = args;
      },
    } as unknown as Response;
    saidNo(res, "/syndicate/accounts", "Threads");
    assert.deepEqual(flashes, [{ kind: "warning", text: "accounts.oauth.denied:Threads" }]);
    assert.deepEqual(redirected, [303, "/syndicate/accounts"]);
    assert.equal(translatorOf({ locals: {} } as Response)("a.key"), "a.key");
  });
});
