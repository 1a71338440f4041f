// npm run demo [-- --port N]: the server with sample posts and the sandbox Mastodon as its target, no
// account and no network needed. A development command, run from a clone through tsx: the sandbox
// is not part of the published package.
import { parseArgs } from "node:util";
import { runDemo } from "./demo.ts";

const { values } = parseArgs({ options: { port: { type: "string" } } });
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
  process.stderr.write("--port: must be a whole number from 0 to 65535\n");
  process.exit(1);
}
process.exitCode = await runDemo(port === undefined ? {} : { port });
