// Micropub's `visibility` property (https://indieweb.org/Micropub-extensions#Visibility): who may
// see a post. `public` (or no value): anyone, listed on the site. `unlisted`: anyone with its URL,
// listed nowhere (home page, feeds) and never syndicated. `private`: the signed-in owner only,
// never written to a static site, never syndicated. Any other value counts as private: a value we
// do not know must not publish a post its author meant to keep back.

export type Visibility = "public" | "unlisted" | "private";

/** A post's visibility from its JF2 properties (a string, or an array from an mf2 source). */
export function visibilityOf(properties: Readonly<Record<string, unknown>>): Visibility {
  const value = properties.visibility;
  if (value === undefined) return "public";
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || values.every((item) => item === "public")) return "public";
  if (values.every((item) => item === "public" || item === "unlisted")) return "unlisted";
  return "private";
}

/**
 * SQL that is true when the post `alias` (a row with a jsonb `properties`) is public: the same
 * rule as visibilityOf, for queries that pick posts to send or list.
 */
export function publicPostSql(alias: string): string {
  return `(${alias}.properties->'visibility' IS NULL
    OR ${alias}.properties->'visibility' IN ('"public"'::jsonb, '["public"]'::jsonb, '[]'::jsonb))`;
}
