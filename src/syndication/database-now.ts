// The core reads "now" in SQL by the one rule of src/contract/database-now.ts (the database's clock
// unless a test's is given), shared with the host and the sources.
export { DATABASE_DECIDES, type DatabaseNow, databaseNow, sqlNow } from "../contract/database-now.ts";
