// The possekit command and npm start run Node with the flags that keep an idle server small (issue
// 18: one V8 worker thread, 4 MB semi-spaces; idle RSS 243 -> 173 MB): the command through its #!
// line, as npx and an installed bin run it, and npm start with the same flags written out.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { cleanEnv } from "./run-cli.ts";

const BIN = join(PACKAGE_ROOT, "bin", "possekit.js");
const FLAGS = "--v8-pool-size=1 --max-semi-space-size=4";

describe("Node's flags for a small server", () => {
  it("the command, run by its #! line, runs Node with them", () => {
    const result = spawnSync(BIN, ["--help"], {
      encoding: "utf8",
      env: cleanEnv({ POSSEKIT_DEBUG_ENTRY: "1" }),
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`with node ${FLAGS}\\n`));
  });

  it("npm start passes the same flags to the same command", () => {
    const { scripts } = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts.start, `node ${FLAGS} bin/possekit.js serve`);
    assert.equal(readFileSync(BIN, "utf8").split("\n")[0], `#!/usr/bin/env -S node ${FLAGS}`);
  });
});
