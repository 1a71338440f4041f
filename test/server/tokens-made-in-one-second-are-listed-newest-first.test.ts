// A token's issued time is its JWT's iat, in whole seconds: the status page lists tokens newest first,
// and tokens made within one second by when this server first knew them, not by their random ids
// (CI once saw a token just made on the page listed below one made earlier that second).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TokenClaims } from "../../src/server/auth/token-signer.ts";
import { memoryAndEngines } from "../helpers/memory-and-engines.ts";
import { tokenRegistryOn } from "./token-registry-on.ts";

const second = new Date(Math.floor(Date.now() / 1000) * 1000);
const claims = (id: string, issuedAt = second): TokenClaims => ({
  me: "https://me.example/",
  scope: ["create"],
  clientId: "https://client.example/",
  id,
  issuedAt,
  expiresAt: new Date(issuedAt.getTime() + 86_400_000),
});

for (const kind of memoryAndEngines) {
  describe(`tokens made within one second are listed newest first (${kind.name})`, () => {
    const opened = tokenRegistryOn(kind);

    it("lists the later of two same-second tokens first, whatever their ids, and an older second last", async () => {
      await opened.registry.record(claims("older", new Date(second.getTime() - 1000)));
      // Ids in both orders: "a" sorts before "Z" in some collations and after it in others.
      await opened.registry.record(claims("a-first"));
      await opened.registry.admit(claims("Z-second"));
      await opened.registry.record(claims("m-third"));
      assert.deepEqual(
        (await opened.registry.list()).map((token) => token.id),
        ["m-third", "Z-second", "a-first", "older"],
      );
    });
  });
}
