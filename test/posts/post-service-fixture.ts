// A migrated, empty database with a post service on it, for the post service's tests.

import type { Database } from "../../src/contract/database.ts";
import type { Publication } from "../../src/contract/syndicator.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import type { PostService } from "../../src/server/posts/post-service-interface.ts";
import type { Engine } from "../helpers/databases.ts";

export const publication: Publication = {
  me: "https://example.org/",
  postUrlPattern: "{me}notes/{yyyy}/{MM}/{dd}/{slug}/",
  timezone: "Europe/Berlin",
  name: "Example",
};

export interface PostServiceFixture {
  database: Database;
  posts: PostService;
  close(): Promise<void>;
}

export async function openPostService(
  engine: Engine,
  overrides: Partial<Publication> = {},
): Promise<PostServiceFixture> {
  const database = await engine.open();
  await migrate(database, postMigrations);
  return {
    database,
    posts: createPostService(database, { ...publication, ...overrides }),
    close: () => database.close(),
  };
}
