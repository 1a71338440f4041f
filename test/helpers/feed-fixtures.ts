// Reading the feed fixtures of test/fixtures/feeds.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

export const FIXTURES = join(PACKAGE_ROOT, "test", "fixtures", "feeds");

/** A fixture's bytes, as a fetch would hand them over. */
export function fixture(...path: string[]): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, ...path)));
}
