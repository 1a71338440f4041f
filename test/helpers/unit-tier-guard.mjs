// Loaded (node --import) into every test process scripts/test.mjs starts: while a unit test runs
// (a file under src/, or a group of them), a database, a socket or a child process throws, naming
// the tier to move the file to. The unit tier stays fast because it cannot do what is slow
// (docs/testing.md). Integration and system files share the patched functions and pass through.
// It once guarded only runs of unit files alone, so a unit test that listened on a socket passed
// `npm test` and failed `npm run test:unit` (two such files, moved under test/ in session 20).
// The runner's own process (which spawns the files' processes) is left alone: Node's test runner
// marks its children with NODE_TEST_CONTEXT.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Set by the entry of a group of unit files (scripts/test-group-entry.mjs). */
const UNIT_GROUP = Symbol.for("possekit.unit-tier");
const SOURCES = fileURLToPath(new URL("../../src/", import.meta.url));

/** Whether this process runs unit tests: a file under src/ as it is, or a group of them. */
export function runsUnitTests() {
  return globalThis[UNIT_GROUP] === true || (process.argv[1] ?? "").startsWith(SOURCES);
}

/** `original`, refused while unit tests run. */
function guarded(what, original) {
  const refusedInUnitTests = function (...args) {
    if (runsUnitTests())
      throw new Error(
        `${what} in a unit test: the unit tier (every src/**/*.test.ts) runs pure modules only. Move ` +
          "the file under test/ (integration; system if scripts/test-tiers.mjs lists it), or test the module without it.",
      );
    return original.apply(this, args);
  };
  // exec and execFile promisify to { stdout, stderr } through their own custom function.
  const custom = original[promisify.custom];
  if (typeof custom === "function")
    Object.defineProperty(refusedInUnitTests, promisify.custom, { value: guarded(what, custom) });
  return refusedInUnitTests;
}

if (process.env.NODE_TEST_CONTEXT) {
  net.Server.prototype.listen = guarded("Listening on a socket", net.Server.prototype.listen);
  net.Socket.prototype.connect = guarded("Opening a connection", net.Socket.prototype.connect);
  for (const name of ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"])
    childProcess[name] = guarded(`child_process.${name}`, childProcess[name]);
  syncBuiltinESMExports();
}
