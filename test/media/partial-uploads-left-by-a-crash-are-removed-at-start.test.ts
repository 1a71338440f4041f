// A process that dies while a file is being uploaded leaves its hidden partial file behind; the
// next start removes it. A fresh one may belong to another instance sharing the folder: it stays,
// and so do the stored files.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startTestServer } from "../helpers/server.ts";

describe("partial uploads at start", () => {
  const folder = mkdtempSync(join(tmpdir(), "possekit-media-"));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("removes an hour-old partial upload, keeps a fresh one and every stored file", async () => {
    mkdirSync(folder, { recursive: true });
    const abandoned = join(folder, ".upload-abandonedabandonedabandoned");
    const fresh = join(folder, ".upload-freshfreshfreshfreshfresh");
    const stored = join(folder, "storedstoredstoredstored.png");
    for (const path of [abandoned, fresh, stored]) writeFileSync(path, "bytes");
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
    utimesSync(stored, twoHoursAgo, twoHoursAgo);
    const server = await startTestServer({ config: { plugins: [], media: { folder } } });
    try {
      assert.equal(existsSync(abandoned), false);
      assert.equal(existsSync(fresh), true);
      assert.equal(existsSync(stored), true);
    } finally {
      await server.close();
    }
  });
});
