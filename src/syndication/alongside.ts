// Statements of the core joined into one (decision 0068): a send's outcomes and what it says of its
// target's health go into the post's write-back as one statement.
import type { AlongsideStatement } from "../contract/post-source.ts";

/**
 * `main` with `extra`'s common table expressions after its own, their parameters numbered on from
 * main's; what comes back is main's `returning`. Their expressions' names must differ.
 */
export function together(
  main: AlongsideStatement,
  extra: AlongsideStatement | undefined,
): AlongsideStatement {
  if (!extra) return main;
  return {
    params: [...main.params, ...extra.params],
    with: (first) => `${main.with(first)}, ${extra.with(first + main.params.length)}`,
    returning: main.returning,
  };
}

/**
 * Several statements as one (a post's outcomes and the next post's claim, decision 0075): their
 * expressions one after the other, their parameters numbered on, and what comes back one json
 * object holding each part's `returning` under its name (partOf reads it).
 */
export function joined(parts: Readonly<Record<string, AlongsideStatement>>): AlongsideStatement {
  const entries = Object.entries(parts);
  return {
    params: entries.flatMap(([, part]) => [...part.params]),
    with(first) {
      let at = first;
      return entries
        .map(([, part]) => {
          const text = part.with(at);
          at += part.params.length;
          return text;
        })
        .join(", ");
    },
    returning: `json_build_object(${entries.map(([name, part]) => `'${name}', ${part.returning}`).join(", ")})`,
  };
}

/**
 * A json value a statement returned: parsed already by one driver, text from another (PGlite and
 * node-postgres differ for a json column built in SQL).
 */
export function jsonValue<T>(value: unknown): T | null {
  return (typeof value === "string" ? JSON.parse(value) : value) as T | null;
}

/** The part of a `joined` statement's answer named `name`. */
export function partOf(value: unknown, name: string): unknown {
  return jsonValue<Record<string, unknown>>(value)?.[name] ?? null;
}
