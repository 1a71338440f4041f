// Decision 0018: the embedded database's lock file (its holder's pid and the server's URL) and the
// folder the lock makes were created with the umask's modes (0644, 0755): readable by every user of
// the machine. They are made 0600 and 0700, whatever the umask.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLogger } from "../logger.ts";
import { FolderLock } from "./folder-lock.ts";

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("the database lock is the owner's alone", () => {
  const parent = mkdtempSync(join(tmpdir(), "possekit-lock-"));
  after(() => rmSync(parent, { recursive: true, force: true }));

  it("makes the lock file 0600 and the folder it creates 0700, under a permissive umask", () => {
    const previous = process.umask(0o022);
    try {
      const folder = join(parent, "new-data", "db");
      const lock = FolderLock.take(folder, createLogger("error"));
      try {
        assert.equal(mode(`${folder}.lock`), "600", "the lock file");
        assert.equal(mode(join(parent, "new-data")), "700", "the folder made for it");
        lock.setUrl("http://127.0.0.1:1");
        assert.equal(mode(`${folder}.lock`), "600", "the lock file once it names the URL");
      } finally {
        lock.release();
      }
    } finally {
      process.umask(previous);
    }
  });
});
