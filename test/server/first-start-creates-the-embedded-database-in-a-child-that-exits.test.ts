// Decision 0030: the very first start (initdb) grew the server's WebAssembly memory to 700–900 MB, which
// is never given back: a server installed on a 512 MB machine died, or sat at 880 MB for good. The
// embedded database is now created by a child process that exits, next to the folder, then moved
// into place in one rename; the server opens a ready folder and never holds initdb's memory. This
// is the way without the template a build ships (first-start-copies-the-shipped-empty-database).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openPglite } from "../../src/server/database/pglite.ts";

const root = mkdtempSync(join(tmpdir(), "possekit-initdb-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** The kernel's high-water mark of this process's resident memory, in MB. */
function peakMegabytes(): number {
  const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  return Number(kilobytes) / 1024;
}

describe("a first start on an empty folder, without a template", () => {
  it("creates the database in a child process: this process never grows to initdb's size", async () => {
    const folder = join(root, "fresh");
    // A start that died half-way left its scratch folder behind: it is removed, not used.
    mkdirSync(`${folder}.initdb`);
    writeFileSync(`${folder}.initdb/PG_VERSION`, "half-made\n");
    const database = await openPglite(folder, { template: null });
    try {
      await database.exec("CREATE TABLE notes (body text)");
      await database.query("INSERT INTO notes VALUES ($1)", ["kept"]);
    } finally {
      await database.close();
    }
    assert.equal(existsSync(`${folder}.initdb`), false, "the scratch folder was moved into place");
    assert.match(readFileSync(join(folder, "PG_VERSION"), "utf8"), /^\d+\n$/, "a database, not the leftover");
    assert.equal((statSync(folder).mode & 0o777).toString(8), "700");
    // initdb in this process peaks at 700–900 MB (decision 0030); opening a ready folder at about 250 MB
    // with the TypeScript loader. The bound sits far from both.
    const peak = peakMegabytes();
    assert.ok(peak < 500, `this process peaked at ${peak.toFixed(0)} MB: initdb ran in it`);

    const again = await openPglite(folder, { template: null });
    try {
      const { rows } = await again.query<{ body: string }>("SELECT body FROM notes");
      assert.deepEqual(rows, [{ body: "kept" }]);
    } finally {
      await again.close();
    }
  });

  it("an empty folder made beforehand (a mounted volume) is filled in place of the rename", async () => {
    const folder = join(root, "made-beforehand");
    mkdirSync(folder, { mode: 0o700 });
    const database = await openPglite(folder, { template: null });
    await database.close();
    assert.ok(existsSync(join(folder, "PG_VERSION")));
    assert.equal(existsSync(`${folder}.initdb`), false);
  });
});
