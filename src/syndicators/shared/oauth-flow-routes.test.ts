import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Request, Response } from "express";
import type { AccountFlowContext } from "../../contract/account-flow.ts";
import { HttpError } from "../../contract/http-error.ts";
import { flowRedirectUri, routesWithDatabase } from "./oauth-flow-routes.ts";

type Server = AccountFlowContext["server"];
const serverWith = (parts: Record<string, unknown>) =>
  ({ config: { application: { url: "https://me.example/" } }, ...parts }) as unknown as Server;

describe("an account flow's routes", () => {
  it("answer 501, saying a database is needed, on a server without one, and are never built", async () => {
    let built = false;
    const router = routesWithDatabase(
      serverWith({ database: null, accounts: null, secretSealer: null }),
      () => {
        built = true;
        throw new Error("built without a database");
      },
    );
    const error = await new Promise<unknown>((resolve) =>
      router({ method: "POST", url: "/authorize", headers: {} } as Request, {} as Response, resolve),
    );
    assert.equal(built, false);
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 501);
    assert.match(error.message, /needs the server's database/);
  });

  it("are built on the server's database, accounts and secret box when it has them", () => {
    const parts = { database: { engine: "pglite" }, accounts: {}, secretSealer: {} };
    let given: unknown;
    routesWithDatabase(serverWith(parts), (found) => {
      given = found;
      return (() => {}) as never;
    });
    assert.deepEqual(given, {
      database: parts.database,
      accounts: parts.accounts,
      sealer: parts.secretSealer,
    });
  });

  it("send the owner back to the flow's callback under the server's own URL", () => {
    assert.equal(
      flowRedirectUri(serverWith({}), "/syndicate/accounts/threads"),
      "https://me.example/syndicate/accounts/threads/callback",
    );
  });
});
