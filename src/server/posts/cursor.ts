import { z } from "zod";
import { InvalidCursorError } from "./errors.ts";

// An opaque keyset position (published, id): stable under inserts, unlike an offset.

export interface KeysetPosition {
  published: Date;
  id: string;
}

const cursorSchema = z.object({
  p: z.iso.datetime({ offset: true }),
  i: z.string().regex(/^[1-9][0-9]{0,18}$/),
});

export function encodeCursor(position: KeysetPosition): string {
  const json = JSON.stringify({ p: position.published.toISOString(), i: position.id });
  return Buffer.from(json, "utf8").toString("base64url");
}

/** Throws InvalidCursorError for anything encodeCursor did not produce. */
export function decodeCursor(cursor: string): KeysetPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursorError(cursor);
  }
  const result = cursorSchema.safeParse(parsed);
  if (!result.success) throw new InvalidCursorError(cursor);
  return { published: new Date(result.data.p), id: result.data.i };
}
