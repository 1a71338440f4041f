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
