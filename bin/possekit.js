#!/usr/bin/env -S node --v8-pool-size=1 --max-semi-space-size=4
// The possekit command: the compiled JavaScript in an installed package or after a build; in a clone
// whose sources changed since (or were never built), the TypeScript through tsx (see entry.js).
// Node's flags fit one small server (issue 18; npm start passes the same): one V8 worker thread
// instead of four, each of which kept 15-40 MB of freed compiler memory in a malloc arena of its
// own, and a young generation of 4 MB semi-spaces instead of 16. Idle RSS 243 -> 173 MB; the
// batch's per-post time unchanged (bench/README.md).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pickEntry } from "./entry.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let entry;
try {
  entry = pickEntry(root, "cli");
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
if (process.env.POSSEKIT_DEBUG_ENTRY === "1")
  process.stderr.write(
    `possekit: runs ${entry.kind} (${entry.reason}) with node ${process.execArgv.join(" ") || "(no flags)"}\n`,
  );
// A process started with scripts/typescript/register.mjs (the tests' children) runs the TypeScript
// through those hooks already.
if (entry.kind === "source" && globalThis[Symbol.for("possekit.typescript")] !== "hooks") {
  try {
    const { register } = await import("tsx/esm/api");
    register();
  } catch {
    process.stderr.write(
      `possekit: src/ changed since dist/ was built (or was never built), and tsx is not installed to run it: run npm run build, or npm install for the development tools.\n`,
    );
    process.exit(1);
  }
}
const { main } = await import(entry.url);
process.exitCode = await main(process.argv.slice(2));
