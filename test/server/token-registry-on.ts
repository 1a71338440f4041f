// The set-up the token registry's tests share: a registry of one kind (in memory, or on an engine's
// database with the registry's tables made), opened before a describe block's tests and closed after.
import type { Database } from "../../src/contract/database.ts";
import {
  type TokenRegistry,
  tokenRegistry,
  tokenRegistryMigrations,
} from "../../src/server/auth/token-registry.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import type { StoreKind } from "../helpers/memory-and-engines.ts";
import { startedForTheBlock } from "../helpers/started-for-the-block.ts";

export interface OpenedRegistry {
  readonly registry: TokenRegistry;
  /** null in memory. */
  readonly database: Database | null;
}

/** Call inside a describe block: its before and after hooks open and close what it answers. */
export function tokenRegistryOn(kind: StoreKind): OpenedRegistry {
  const running = startedForTheBlock(
    "tokenRegistryOn",
    async () => {
      const database = await kind.open();
      if (database) await migrate(database, tokenRegistryMigrations);
      return { registry: tokenRegistry(database), database };
    },
    async ({ database }) => {
      await database?.close();
    },
  );
  return {
    get registry() {
      return running().registry;
    },
    get database() {
      return running().database;
    },
  };
}
