// A package the shipped code imports must be in package.json's dependencies: one that arrives only as
// another package's dependency (parse5 came with microformats-parser) disappears the day that package
// drops it, and an install of possekit then fails at the first request that needs it. Tests and dev
// tools may use devDependencies; src/ may not.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { describe, it } from "node:test";

const root = join(import.meta.dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
};
const declared = new Set(Object.keys(manifest.dependencies ?? {}));

function* sourceFiles(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) yield path;
  }
}

/** The package a bare specifier names: "a/b" → "a", "@s/a/b" → "@s/a". */
const packageOf = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? "");

/** The packages a file imports at run time (type-only imports are erased and need nothing). */
export function importedPackages(source: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /^\s*import\s+(?!type\s)(?:[^"';]*?\s+from\s+)?["']([^"'./][^"']*)["']/gm,
    /^\s*export\s+(?!type\s)[^"';]*?\s+from\s+["']([^"'./][^"']*)["']/gm,
    /\bimport\(\s*["']([^"'./][^"']*)["']\s*\)/g,
  ];
  for (const pattern of patterns)
    for (const match of source.matchAll(pattern)) {
      const specifier = match[1] as string;
      if (specifier.startsWith("node:") || builtinModules.includes(specifier)) continue;
      found.add(packageOf(specifier));
    }
  return [...found];
}

describe("the packages the shipped code imports", () => {
  it("reads imports the way the check relies on", () => {
    assert.deepEqual(
      importedPackages(
        [
          'import express, { type Router } from "express";',
          'import type { Foo } from "type-only";',
          'import { parse } from "parse5/dist/index.js";',
          'export { thing } from "@scope/pkg/sub";',
          'import "side-effect";',
          'const lazy = await import("lazy-one");',
          'import { readFile } from "node:fs/promises";',
          'import { join } from "path";',
          'import { here } from "./here.ts";',
        ].join("\n"),
      ).sort(),
      ["@scope/pkg", "express", "lazy-one", "parse5", "side-effect"],
    );
  });

  it("are all declared in package.json's dependencies", () => {
    const undeclared: string[] = [];
    for (const file of sourceFiles(join(root, "src")))
      for (const name of importedPackages(readFileSync(file, "utf8")))
        if (!declared.has(name)) undeclared.push(`${relative(root, file)}: ${name}`);
    assert.deepEqual(undeclared, [], "add each to dependencies (npm install --save <package>)");
  });
});
