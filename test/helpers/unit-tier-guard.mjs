// Loaded (node --import) when the unit tier runs: in each test file's process, a database, a socket
// or a child process throws, naming the tier to move the file to. The unit tier stays fast because
// it cannot do what is slow (docs/testing.md). The runner's own process (which spawns the files'
// processes) is left alone: Node's test runner marks its children with NODE_TEST_CONTEXT.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

if (process.env.NODE_TEST_CONTEXT) {
  const refuse = (what) => () => {
    throw new Error(
      `${what} in a unit test: the unit tier (every src/**/*.test.ts) runs pure modules only. Move ` +
        "the file under test/ (integration; system if scripts/test-tiers.mjs lists it), or test the module without it.",
    );
  };
  net.Server.prototype.listen = refuse("Listening on a socket");
  net.Socket.prototype.connect = refuse("Opening a connection");
  for (const name of ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"])
    childProcess[name] = refuse(`child_process.${name}`);
  syncBuiltinESMExports();
}
