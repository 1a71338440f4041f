// The `copies` options of the endpoint plug-in: how many requests one address may make to the public
// copies routes (GET {mountPath}/copies, /copies.json) per window. Every request counts, answered or
// not, in a bucket of its own: a stranger spends only their own budget, never the owner's site
// generator's (another address), the webhooks' or a signed-in user's.
import { z } from "zod";

const limitMessage =
  "must be a whole number of requests from 1 to 100000, such as 120 (the default; a site build fetches copies.json once).";
const windowMessage =
  "must be a whole number of milliseconds from 1000 to 86400000, such as 60000 (a minute).";

export const copiesOptionsSchema = z
  .strictObject(
    {
      /** Requests per window and address to the copies routes. */
      limit: z
        .number({ error: limitMessage })
        .int({ error: limitMessage })
        .min(1, { error: limitMessage })
        .max(100_000, { error: limitMessage })
        .default(120),
      /** The window of that limit, in milliseconds. */
      windowMs: z
        .number({ error: windowMessage })
        .int({ error: windowMessage })
        .min(1_000, { error: windowMessage })
        .max(86_400_000, { error: windowMessage })
        .default(60_000),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
            "the copies options are limit and windowMs."
          : "must be an object, such as { limit: 120, windowMs: 60000 }.",
    },
  )
  // An absent `copies` entry means all the defaults.
  .prefault({});

export type CopiesOptions = z.output<typeof copiesOptionsSchema>;
