// Every name docs/plugin-contract.md tells a plug-in's author to import from
// `@possekit/endpoint-syndicate/contract` is exported by the entry the package publishes as that
// (package.json "exports": ./contract is src/contract/index.ts built), and so is the typing of
// `req.auth` the doc's routes read: an author copying the doc's imports gets no "has no exported
// member" and no "Property 'auth' does not exist".
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const CONTRACT = "@possekit/endpoint-syndicate/contract";
const here = dirname(fileURLToPath(import.meta.url));
const repository = join(here, "../..");
const doc = readFileSync(join(repository, "docs/plugin-contract.md"), "utf8");

interface DocumentedImport {
  name: string;
  typeOnly: boolean;
}

/** The names of every `import … from "@possekit/endpoint-syndicate/contract"` in the doc's code. */
function documentedImports(markdown: string): DocumentedImport[] {
  const code = [...markdown.matchAll(/```tsx?\n([\s\S]*?)```/g)].map((block) => block[1] ?? "").join("\n");
  const statements = code.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g);
  return [...statements]
    .filter(([, , , from]) => from === CONTRACT)
    .flatMap(([, typeKeyword, names]) =>
      (names ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "")
        .map((name) => ({
          name: name.replace(/^type\s+/, ""),
          typeOnly: typeKeyword !== undefined || name.startsWith("type "),
        })),
    );
}

/** The doc's contract imports taken from src/contract/index.ts, plus a route reading req.auth. */
function consumerOf(imports: DocumentedImport[]): string {
  const names = imports.map(({ name }) => name);
  return [
    `import type { Request } from "express";`,
    `import type { ${names.join(", ")} } from "./index.ts";`,
    `export const whoAsked = (req: Request): string | undefined => req.auth?.me;`,
    "",
  ].join("\n");
}

/** What tsc says of `source` as a module beside index.ts, with the project's compiler options. */
function typeErrors(source: string): string[] {
  const config = ts.readConfigFile(join(repository, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repository);
  const file = join(here, "documented-imports.consumer.ts");
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram({ rootNames: [file], options, host });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

describe("the published contract entry", () => {
  const imports = documentedImports(doc);

  it("is what docs/plugin-contract.md imports from, with the route helpers and the post-source port", () => {
    const names = imports.map(({ name }) => name);
    for (const name of ["EndpointPlugin", "Server", "PostSource", "hasScope", "setFlash", "prefersHtml"])
      assert.ok(names.includes(name), `docs/plugin-contract.md imports ${name} from ${CONTRACT}`);
  });

  it("exports at run time every name the doc imports as a value", async () => {
    const contract: Record<string, unknown> = await import("./index.ts");
    const missing = imports.filter(({ name, typeOnly }) => !typeOnly && !(name in contract));
    assert.deepEqual(
      missing.map(({ name }) => name),
      [],
    );
  });

  it("type-checks the doc's imports and req.auth from the entry alone", () => {
    assert.deepEqual(typeErrors(consumerOf(imports)), []);
  });
});
