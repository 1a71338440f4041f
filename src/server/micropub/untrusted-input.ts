// A parsed Micropub body is the client's, not ours: before anything reads it, it is copied into
// null-prototype objects (so that a field named constructor, toString or valueOf is an ordinary
// property and never Object.prototype's member), and refused with a 400 when it nests deeper than
// any mf2 needs (recursive readers further on would overflow the stack), names __proto__, or holds a
// null (Micropub has no null values; a client that sends one means "nothing", which is delete).
import { badRequest } from "../../contract/http-error.ts";

/** Objects and arrays inside one another; an h-entry with an author h-card in an org h-card needs about 12. */
export const MAX_NESTING = 32;

/** The sections of a body whose keys are property names, for naming the property in an error. */
const PROPERTY_SECTIONS = new Set(["properties", "replace", "add", "delete"]);

type Path = readonly (string | number)[];

function pathText(path: Path): string {
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}

/** The property a value belongs to: the key right under properties/replace/add/delete at the top. */
function propertyOf(path: Path): string | undefined {
  const [section, name] = path;
  return typeof section === "string" && PROPERTY_SECTIONS.has(section) && typeof name === "string"
    ? name
    : undefined;
}

function copy(value: unknown, path: Path, depth: number): unknown {
  if (value === null) {
    const property = propertyOf(path);
    throw badRequest(
      property === undefined
        ? `${pathText(path) || "The body"} is null; Micropub has no null values, leave it out`
        : `"${property}" has a null value (${pathText(path)}); Micropub has no null values: leave the value out, or remove it with an update's delete`,
    );
  }
  if (typeof value !== "object") return value;
  if (depth >= MAX_NESTING) {
    const property = propertyOf(path);
    throw badRequest(
      `${property === undefined ? "The request" : `"${property}"`} is nested deeper than ${MAX_NESTING} levels; mf2 items need only a few`,
    );
  }
  if (Array.isArray(value)) return value.map((item, index) => copy(item, [...path, index], depth + 1));
  const copied: Record<string, unknown> = Object.create(null);
  for (const [key, inner] of Object.entries(value)) {
    if (key === "__proto__")
      throw badRequest(`"__proto__" is not a property name${path.length ? ` (in ${pathText(path)})` : ""}`);
    copied[key] = copy(inner, [...path, key], depth + 1);
  }
  return copied;
}

/** The body as plain data in null-prototype objects, or a 400 naming what is wrong with it. */
export function untrustedInput(body: unknown): unknown {
  return copy(body, [], 0);
}
