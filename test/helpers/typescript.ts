// What a test puts before bin/possekit.js when it starts the command from the sources: the module
// hooks its own process runs our TypeScript with (scripts/typescript/register.mjs), which the command
// then uses instead of loading tsx (about 1 s less CPU for each start). The command's own choice of
// tsx, without them, is test/cli/bin-runs-dist-only-when-built-from-the-current-sources.test.ts's.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";

export const TYPESCRIPT_HOOKS = [
  "--import",
  pathToFileURL(join(PACKAGE_ROOT, "scripts/typescript/register.mjs")).href,
];
