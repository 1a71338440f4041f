// The WebSub subscriptions table. The feed source adds these to its own migrations.
import type { Migration } from "../../../../contract/database.ts";

export const webSubMigrations: Migration[] = [];
