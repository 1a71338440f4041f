// Stores that keep their rows in memory when the host runs without a database (the token registry,
// the grant store) are tested both ways: "memory" opens no database, then each engine opens one.
import type { Database } from "../../src/contract/database.ts";
import { engines } from "./databases.ts";

export interface StoreKind {
  name: string;
  /** null for "memory"; a database holding no rows otherwise (close it when done). */
  open(): Promise<Database | null>;
}

export const memoryAndEngines: StoreKind[] = [
  { name: "memory", open: async () => null },
  ...engines.map((engine) => ({ name: engine.name, open: () => engine.open() })),
];
