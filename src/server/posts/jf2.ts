import { ALWAYS_ARRAY_PROPERTIES, sameValue, valuesOf } from "../../contract/jf2.ts";
import type { PostStatus, PostUpdate } from "../../contract/posts.ts";
import { InvalidPostError } from "./errors.ts";

// The JF2 storage rules of src/contract/posts.ts, as functions: every write goes through
// normalizeProperties, so that what is stored always has the same shape whoever wrote it.

export type Properties = Record<string, unknown>;

/** Set by the server; updates may change only those listed in UPDATABLE_SERVER_PROPERTIES, and only by replace. */
const SERVER_PROPERTIES = new Set(["url", "type", "published", "post-status"]);
const REPLACEABLE_SERVER_PROPERTIES = new Set(["published", "post-status"]);

function withoutDuplicates(values: unknown[]): unknown[] {
  const kept: unknown[] = [];
  for (const value of values) if (!kept.some((other) => sameValue(other, value))) kept.push(value);
  return kept;
}

/** The stored form of one property's values: an array for the always-array ones, else a plain value when single. */
function storedForm(name: string, values: unknown[]): unknown {
  let kept = values.filter((value) => value !== null && value !== undefined);
  if (name === "photo") kept = kept.map((photo) => (typeof photo === "string" ? { url: photo } : photo));
  if (ALWAYS_ARRAY_PROPERTIES.has(name)) return withoutDuplicates(kept);
  return kept.length === 1 ? kept[0] : kept;
}

// PostgreSQL (and PGlite) cannot store U+0000 or half of a surrogate pair in jsonb (a JSON body can
// carry both as \u escapes), and refuses JSON nested a few thousand levels deep.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);
/** Far deeper than any mf2 (an h-card in a property is a handful of levels). */
const MAX_DEPTH = 64;

/** Why a property's value cannot be stored, or undefined when it can. */
function unstorableValue(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return `is nested more than ${MAX_DEPTH} levels deep`;
  if (typeof value === "string")
    return unstorable(value)
      ? "contains a NUL character (U+0000) or half of a UTF-16 surrogate pair, which cannot be stored; remove it"
      : undefined;
  const children = Array.isArray(value)
    ? value
    : value && typeof value === "object"
      ? Object.entries(value).flat()
      : [];
  for (const child of children) {
    const reason = unstorableValue(child, depth + 1);
    if (reason) return reason;
  }
  return undefined;
}

/** Applies the storage rules; drops empty and null properties. Returns a new object. */
export function normalizeProperties(properties: Properties): Properties {
  const normalized: Properties = {};
  for (const [name, value] of Object.entries(properties)) {
    if (name === "") throw new InvalidPostError("A property has an empty name; name every property");
    const unstorableReason = unstorableValue(name) ?? unstorableValue(value);
    if (unstorableReason) throw new InvalidPostError(`${JSON.stringify(name)} ${unstorableReason}`);
    const stored = storedForm(name, valuesOf(value));
    if (Array.isArray(stored) && stored.length === 0) continue;
    normalized[name] = stored;
  }
  for (const name of ["mp-syndicate-to", "syndication"]) {
    const values = normalized[name];
    if (Array.isArray(values) && values.some((value) => typeof value !== "string"))
      throw new InvalidPostError(`Every value of "${name}" must be a string; got ${JSON.stringify(values)}`);
  }
  return normalized;
}

export function parsePostStatus(value: unknown): PostStatus {
  if (value === "published" || value === "draft") return value;
  throw new InvalidPostError(`"post-status" must be "published" or "draft"; got ${JSON.stringify(value)}`);
}

export function parsePublished(value: unknown): Date {
  const date = typeof value === "string" ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new InvalidPostError(
      `"published" must be an ISO 8601 date and time such as 2024-05-01T12:00:00Z; got ${JSON.stringify(value)}`,
    );
  return date;
}

function refuseServerProperty(name: string, operation: "add" | "delete" | "replace"): void {
  if (!SERVER_PROPERTIES.has(name)) return;
  if (operation === "replace" && REPLACEABLE_SERVER_PROPERTIES.has(name)) return;
  const hint = REPLACEABLE_SERVER_PROPERTIES.has(name) ? `; use replace to change it` : "";
  throw new InvalidPostError(`"${name}" is set by the server and cannot be changed with ${operation}${hint}`);
}

/**
 * Applies replace, then add, then delete (the Micropub order) to a copy of the properties. `add`
 * skips values already present; deleting the last value of a property removes the property.
 */
export function applyUpdate(current: Properties, update: PostUpdate): Properties {
  // Null prototype: adding to a property named toString or constructor starts from nothing.
  const next: Properties = Object.assign(Object.create(null), current);
  for (const [name, value] of Object.entries(update.replace ?? {})) {
    refuseServerProperty(name, "replace");
    next[name] = value;
  }
  for (const [name, values] of Object.entries(update.add ?? {})) {
    refuseServerProperty(name, "add");
    if (!Array.isArray(values))
      throw new InvalidPostError(`add.${name} must be an array of values; got ${JSON.stringify(values)}`);
    const present = valuesOf(next[name]);
    const added = values.filter((value) => !present.some((other) => sameValue(other, value)));
    next[name] = [...present, ...withoutDuplicates(added)];
  }
  const deletion = update.delete ?? {};
  if (Array.isArray(deletion)) {
    for (const name of deletion) {
      if (typeof name !== "string")
        throw new InvalidPostError(`delete must list property names; got ${JSON.stringify(name)}`);
      refuseServerProperty(name, "delete");
      delete next[name];
    }
  } else {
    for (const [name, values] of Object.entries(deletion)) {
      refuseServerProperty(name, "delete");
      if (!Array.isArray(values))
        throw new InvalidPostError(
          `delete.${name} must be an array of values; got ${JSON.stringify(values)}`,
        );
      next[name] = valuesOf(next[name]).filter((value) => !values.some((gone) => sameValue(gone, value)));
    }
  }
  return normalizeProperties(next);
}
