// Decision 0018: the data folder holds the generated secret and password and the embedded
// database (the targets' ledger, the session revocations). It was made 0755 and PGlite wrote its
// files 0666, so every user of the machine could read, even change, them. A first start now makes
// the folder 0700, and the database's folders 0700 and files 0600.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/server/config/load.ts";
import { Host } from "../../src/server/host.ts";
import { createLogger } from "../../src/server/logger.ts";
import { freePort } from "../helpers/server.ts";

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every folder and file under `folder`, with its mode, e.g. ["0700 d base", "0600 f base/1/112"]. */
function modesUnder(folder: string, prefix = ""): Array<{ path: string; kind: "d" | "f"; mode: string }> {
  const found: Array<{ path: string; kind: "d" | "f"; mode: string }> = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      found.push({ path: name, kind: "d", mode: mode(path) });
      found.push(...modesUnder(path, `${name}/`));
    } else if (entry.isFile()) found.push({ path: name, kind: "f", mode: mode(path) });
  }
  return found;
}

describe("the data folder and the database files are the owner's alone", () => {
  const parent = mkdtempSync(join(tmpdir(), "possekit-modes-"));
  after(() => rmSync(parent, { recursive: true, force: true }));

  it("makes the data folder 0700, its secrets 0600, and the database's folders 0700 and files 0600", async () => {
    const port = await freePort();
    // No SECRET, PASSWORD or DATABASE_URL: a first start makes all of them in the data folder.
    const config = loadConfig({
      config: { application: { port, url: `http://127.0.0.1:${port}`, dataDir: "data" }, plugins: [] },
      env: {},
      cwd: parent,
    });
    const host = new Host(config, { logger: createLogger("error") });
    await host.prepare();
    await host.listen();
    const dataDir = join(parent, "data");
    try {
      const token = await host.tokens.issue({ scope: ["create"], clientId: "test", lifetimeDays: 1 });
      const created = await fetch(`http://127.0.0.1:${port}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
        body: "h=entry&content=written+to+the+database",
      });
      assert.equal(created.status, 201);
      assert.equal(mode(dataDir), "700", "the data folder");
      assert.equal(mode(join(dataDir, "db")), "700", "the database folder, while the server runs");
    } finally {
      await host.stop();
    }
    assert.equal(mode(dataDir), "700", "the data folder");
    assert.equal(mode(join(dataDir, "secret")), "600");
    assert.equal(mode(join(dataDir, "password")), "600");
    assert.equal(mode(join(dataDir, "db")), "700");
    const entries = modesUnder(join(dataDir, "db"));
    assert.ok(entries.filter((entry) => entry.kind === "f").length > 100, "PGlite wrote its files");
    assert.deepEqual(
      entries.filter((entry) => entry.mode !== (entry.kind === "d" ? "700" : "600")).slice(0, 5),
      [],
      "no folder other than 0700 and no file other than 0600",
    );
  });
});
