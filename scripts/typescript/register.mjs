// `node --import ./scripts/typescript/register.mjs file.ts`: runs possekit's TypeScript (the tests,
// and the possekit command from a clone whose sources changed since the build). See ./hooks.mjs.
import { register } from "node:module";

// Stack traces name the TypeScript's lines, not the compiled JavaScript's.
process.setSourceMapsEnabled(true);
register("./hooks.mjs", import.meta.url);
