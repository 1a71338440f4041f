// Decision 0030: even in a child process, initdb peaked at 768 MB, more than a 512 MB machine has. The
// build now makes an empty database once and ships it (dist/pgdata-pglite-<version>.tar.br); a
// first start copies it into the new folder and runs no initdb at all.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { brotliCompressSync } from "node:zlib";
import { createDatabaseFolder, openPglite, startParams } from "../../src/server/database/pglite.ts";
import { writeTemplate } from "../../src/server/database/pglite-template.ts";

const root = mkdtempSync(join(tmpdir(), "possekit-template-"));
const template = join(root, "template.tar.br");
after(() => rmSync(root, { recursive: true, force: true }));
before(() => writeTemplate(template, startParams()));

/** PostgreSQL's system identifier: initdb draws a new one each time; a copy keeps its template's. */
async function systemIdentifier(folder: string): Promise<string> {
  const database = await openPglite(folder, { template });
  try {
    const { rows } = await database.query<{ id: string }>(
      "SELECT system_identifier::text AS id FROM pg_control_system()",
    );
    return rows[0]?.id ?? "";
  } finally {
    await database.close();
  }
}

function modes(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => (statSync(join(entry.parentPath, entry.name)).mode & 0o777).toString(8));
}

describe("a first start on an empty folder, with the template the build ships", () => {
  it("copies the template: two new folders are the same database, not two initdb runs", async () => {
    const first = await systemIdentifier(join(root, "first"));
    const second = await systemIdentifier(join(root, "second"));
    assert.match(first, /^\d+$/);
    assert.equal(second, first, "both came from the template (initdb draws a new identifier each time)");
  });

  it("the copy is a working database, kept across restarts, the owner's alone, with no stale pid file", async () => {
    const folder = join(root, "working");
    const database = await openPglite(folder, { template });
    try {
      await database.exec("CREATE TABLE notes (body text)");
      await database.query("INSERT INTO notes VALUES ($1)", ["kept"]);
    } finally {
      await database.close();
    }
    const again = await openPglite(folder, { template });
    try {
      const { rows } = await again.query<{ body: string }>("SELECT body FROM notes");
      assert.deepEqual(rows, [{ body: "kept" }]);
    } finally {
      await again.close();
    }
    assert.equal((statSync(folder).mode & 0o777).toString(8), "700");
    assert.deepEqual([...new Set(modes(folder))], ["600"]);
    assert.equal(existsSync(`${folder}.initdb`), false, "the scratch folder was moved into place");
  });

  it("a folder that holds a database is left as it is; a damaged template leaves nothing behind", async () => {
    const folder = join(root, "working");
    assert.equal(await createDatabaseFolder(folder, template), null);
    const damaged = join(root, "damaged.tar.br");
    writeFileSync(damaged, brotliCompressSync(Buffer.alloc(1024)));
    const fresh = join(root, "from-damaged");
    await assert.rejects(createDatabaseFolder(fresh, damaged), /Could not create the embedded database/);
    assert.equal(existsSync(fresh), false);
    assert.equal(existsSync(`${fresh}.initdb`), false);
  });
});
