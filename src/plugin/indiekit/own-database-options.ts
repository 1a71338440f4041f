// The plug-in's own database, for a host that offers none of possekit's (Indiekit: its MongoDB is
// not ours to use). Under possekit's host the host's database is used and this option is refused.
import { z } from "zod";

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

/**
 * `{ folder: "data/posse" }`: an embedded PGlite folder, this process's alone; or
 * `{ url: "postgres://…" }`: a PostgreSQL database, which instances may share.
 */
export const ownDatabaseOptionSchema = z
  .strictObject(
    {
      folder: z
        .string({ error: 'must be a folder path, e.g. "data/posse"' })
        .trim()
        .min(1, { error: 'must be a folder path, e.g. "data/posse"' })
        .optional(),
      url: z
        .string({ error: 'must be a URL like "postgres://user@host/db"' })
        .trim()
        .regex(POSTGRES_URL, { error: 'must be a URL like "postgres://user@host/db"' })
        .optional(),
    },
    { error: 'must be { folder: "data/posse" } or { url: "postgres://…" }' },
  )
  .superRefine(({ folder, url }, context) => {
    if (folder !== undefined && url !== undefined)
      context.addIssue({
        code: "custom",
        message: 'takes folder or url, not both: keep { folder: "…" } or { url: "postgres://…" }',
      });
    else if (folder === undefined && url === undefined)
      context.addIssue({
        code: "custom",
        message: 'needs folder or url: write { folder: "data/posse" } or { url: "postgres://…" }',
      });
  })
  .optional();

export type OwnDatabaseOption = NonNullable<z.infer<typeof ownDatabaseOptionSchema>>;

/** Where the database is, as the host's openDatabase reads it. */
export function ownDatabaseLocation(option: OwnDatabaseOption): string {
  return option.url ?? option.folder ?? "";
}
