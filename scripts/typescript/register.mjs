// `node --import ./scripts/typescript/register.mjs file.ts`: runs possekit's TypeScript (the tests,
// and the possekit command from a clone whose sources changed since the build). See ./hooks.mjs.
import { register } from "node:module";

// Stack traces name the TypeScript's lines, not the compiled JavaScript's.
process.setSourceMapsEnabled(true);
register("./hooks.mjs", import.meta.url);
// Tells bin/possekit.js that this process runs our TypeScript already, so that it does not load tsx
// on top (about 1 s more CPU for each possekit command the system tests start). A mark in the
// process, not the environment: a child started without these hooks still needs tsx.
globalThis[Symbol.for("possekit.typescript")] = "hooks";
