// The entry scripts/test.mjs writes for a group of test files that share one process (GROUP_SIZE):
// each file imported inside a suite named by its path, so that its tests, hooks and failures are
// reported under that path (scripts/slowest-tests.mjs and CI's list of failed files read them so).
//
// The modules the files import of ours are loaded first, before any suite. The test runner puts a
// test under the suite whose code (or whose promises) created it. When two files import a module
// that awaits at its top level (the embedded database's, src/server/database/pglite.ts), the second
// file's code runs when that module's await ends, which continues the first file's import: every
// file of the group then ran inside the first file's suite, and one file's failure was reported as
// the first file's (CI named the Status page's test for the Syndicate page's).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { runtimeImports } from "./test-tiers.mjs";

/** The modules the files import by a relative path, as file URLs, each once. */
export function ownImports(files) {
  const urls = files.flatMap((file) => {
    const path = resolve(file);
    return runtimeImports(readFileSync(path, "utf8"))
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => pathToFileURL(resolve(dirname(path), specifier)).href);
  });
  return [...new Set(urls)];
}

/**
 * The text of the group's entry file: `files` are paths, absolute or relative to the working folder;
 * `unit` marks a group of unit files, which test/helpers/unit-tier-guard.mjs then guards.
 */
export function groupEntry(files, { unit = false } = {}) {
  const preload = ownImports(files).map((url) => `  import(${JSON.stringify(url)}),`);
  const suites = files.map(
    (file) =>
      `describe(${JSON.stringify(file)}, async () => {\n  await import(${JSON.stringify(pathToFileURL(resolve(file)).href)});\n});`,
  );
  return [
    `// ${files.length} test files in one process (scripts/test.mjs, GROUP_SIZE; scripts/test-group-entry.mjs).`,
    'import { describe } from "node:test";',
    "",
    ...(unit ? ['globalThis[Symbol.for("possekit.unit-tier")] = true;', ""] : []),
    "// What the files import of ours, loaded before any suite: a failure to load shows in its file's suite.",
    `await Promise.allSettled([\n${preload.join("\n")}\n]);`,
    "",
    suites.join("\n"),
    "",
  ].join("\n");
}
