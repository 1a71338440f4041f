// "Did you mean" for a misspelt option: the known key closest to what was written, when it is close
// enough to be a slip of the keyboard rather than another word.
import type { z } from "zod";

/** Edit distance with transpositions ("prot" → "port" is one edit). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

export function closest(written: string, known: Iterable<string>): string | undefined {
  const lower = written.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const d = distance(lower, key.toLowerCase());
    if (d <= Math.max(1, Math.floor(key.length / 3)) && (!best || d < best.distance))
      best = { key, distance: d };
  }
  return best?.key;
}

interface SchemaInternals {
  _zod: { def: { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType } };
}

/** The keys an object schema at `path` knows, looking through defaults, optionals and pipes. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  const steps = [...path];
  while (current) {
    // zod keeps wrapped schemas in its definition; there is no public accessor common to them all.
    const def: SchemaInternals["_zod"]["def"] = (current as unknown as SchemaInternals)._zod.def;
    if (def.innerType) current = def.innerType;
    else if (def.in) current = def.in;
    else if (def.type === "object" && def.shape) {
      if (steps.length === 0) return Object.keys(def.shape);
      current = def.shape[String(steps.shift())];
    } else return [];
  }
  return [];
}

/** One line per unknown key, naming its path and the known key it most likely meant. */
export function unknownKeyLines(
  schema: z.ZodType,
  issue: { path: readonly PropertyKey[]; keys: readonly string[] },
  prefix = "",
): string[] {
  const known = knownKeysAt(schema, issue.path);
  return issue.keys.map((key) => {
    const path = [...issue.path.map(String), key].join(".");
    const guess = closest(key, known);
    const hint = guess ? `did you mean "${guess}"?` : `known options here: ${known.join(", ")}`;
    return `${prefix}${path}: unknown option; ${hint}`;
  });
}
