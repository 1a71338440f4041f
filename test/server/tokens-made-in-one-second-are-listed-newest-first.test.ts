// A token's issued time is its JWT's iat, in whole seconds: the status page lists tokens newest first,
// and tokens made within one second by when this server first knew them, not by their random ids
// (CI once saw a token just made on the page listed below one made earlier that second).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import {
  type TokenRegistry,
  tokenRegistry,
  tokenRegistryMigrations,
} from "../../src/server/auth/token-registry.ts";
import type { TokenClaims } from "../../src/server/auth/token-signer.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { engines } from "../helpers/databases.ts";

const second = new Date(Math.floor(Date.now() / 1000) * 1000);
const claims = (id: string, issuedAt = second): TokenClaims => ({
  me: "https://me.example/",
  scope: ["create"],
  clientId: "https://client.example/",
  id,
  issuedAt,
  expiresAt: new Date(issuedAt.getTime() + 86_400_000),
});

const kinds: Array<{ name: string; open(): Promise<Database | null> }> = [
  { name: "memory", open: async () => null },
  ...engines.map((engine) => ({ name: engine.name, open: () => engine.open() })),
];

for (const kind of kinds) {
  describe(`tokens made within one second are listed newest first (${kind.name})`, () => {
    let database: Database | null;
    let registry: TokenRegistry;
    before(async () => {
      database = await kind.open();
      if (database) await migrate(database, tokenRegistryMigrations);
      registry = tokenRegistry(database);
    });
    after(async () => {
      await database?.close();
    });

    it("lists the later of two same-second tokens first, whatever their ids, and an older second last", async () => {
      await registry.record(claims("older", new Date(second.getTime() - 1000)));
      // Ids in both orders: "a" sorts before "Z" in some collations and after it in others.
      await registry.record(claims("a-first"));
      await registry.admit(claims("Z-second"));
      await registry.record(claims("m-third"));
      assert.deepEqual(
        (await registry.list()).map((token) => token.id),
        ["m-third", "Z-second", "a-first", "older"],
      );
    });
  });
}
