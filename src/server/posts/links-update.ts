// A write-back's update (links added to `syndication`, targets deleted from `mp-syndicate-to`) as
// jsonb operators over the row's own properties, so that the post is changed in one UPDATE with no
// read before it (decision 0068). The UPDATE computes the new value from the row it locks: an edit
// committed meanwhile is the row it starts from (PostgreSQL rechecks a row updated since the
// statement began against its newest version), so neither change is lost.
import type { PostUpdate } from "../../contract/posts.ts";

/** The properties such an update may touch: arrays of strings in every stored post (jf2.ts). */
const LINK_PROPERTIES = new Set(["syndication", "mp-syndicate-to"]);

const strings = (values: unknown): string[] | undefined =>
  Array.isArray(values) && values.every((value) => typeof value === "string") ? values : undefined;

export interface LinksUpdate {
  /** Per property: the values to add (in order, each once) and those to delete. */
  changes: Map<string, { add: string[]; remove: string[] }>;
}

/**
 * The update as a LinksUpdate, or undefined when it is anything else (a replace, another property,
 * a value that is not a string): such an update is applied to the row read under a lock instead.
 */
export function linksUpdateOf(update: PostUpdate): LinksUpdate | undefined {
  if (update.replace && Object.keys(update.replace).length > 0) return undefined;
  if (Array.isArray(update.delete)) return undefined;
  const changes = new Map<string, { add: string[]; remove: string[] }>();
  const change = (name: string) => {
    const found = changes.get(name) ?? { add: [], remove: [] };
    changes.set(name, found);
    return found;
  };
  for (const [name, values] of Object.entries(update.add ?? {})) {
    const added = strings(values);
    if (!LINK_PROPERTIES.has(name) || !added) return undefined;
    change(name).add = [...new Set(added)];
  }
  for (const [name, values] of Object.entries(update.delete ?? {})) {
    const removed = strings(values);
    if (!LINK_PROPERTIES.has(name) || !removed) return undefined;
    change(name).remove = removed;
  }
  return { changes };
}

/** A property's values as a jsonb array, whether stored as an array or a lone value. */
const asArray = (value: string) =>
  `(CASE WHEN ${value} IS NULL THEN '[]'::jsonb WHEN jsonb_typeof(${value}) = 'array' THEN ${value}
     ELSE jsonb_build_array(${value}) END)`;

/**
 * The SET expression of `properties` for a LinksUpdate, its parameters numbered from `$first`
 * (returned with it): add (skipping values present), then delete, as applyUpdate does; a property
 * left with no value is removed.
 */
export function linksUpdateSql(
  column: string,
  { changes }: LinksUpdate,
  first: number,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [[...changes.keys()]];
  const parts = [`(${column} - $${first}::text[])`];
  for (const [name, { add, remove }] of changes) {
    const addAt = first + params.length;
    params.push(name, add, remove);
    const values = asArray(`${column}->$${addAt}::text`);
    const added = `(${values} || COALESCE((SELECT jsonb_agg(a.value ORDER BY a.n)
         FROM unnest($${addAt + 1}::text[]) WITH ORDINALITY AS a(value, n)
        WHERE NOT ${values} ? a.value), '[]'::jsonb))`;
    const kept = `(${added} - $${addAt + 2}::text[])`;
    parts.push(
      `(SELECT CASE WHEN jsonb_array_length(v) > 0 THEN jsonb_build_object($${addAt}::text, v)
          ELSE '{}'::jsonb END FROM (SELECT ${kept} AS v) AS kept)`,
    );
  }
  return { sql: parts.join(" || "), params };
}
