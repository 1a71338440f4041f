// The folder store's writer on a scratch folder: a path that leaves the folder is refused before
// anything is written; files are written whole (no temporary file left behind) and removed; a change
// that fails part-way puts back every file it had touched, as it was, and says why. Through Micropub:
// test/publishing/folder-store-writes-files-and-never-loses-a-refused-change.test.ts.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, describe, it } from "node:test";
import { StoreError } from "./content-store.ts";
import { applyFiles, FolderWriter, inside } from "./folder-writer.ts";

const scratch = mkdtempSync(join(tmpdir(), "possekit-folder-writer-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let site = "";
let sites = 0;
beforeEach(() => {
  site = join(scratch, `site-${++sites}`);
  mkdirSync(join(site, "content"), { recursive: true });
  writeFileSync(join(site, "content", "kept.md"), "kept\n");
});

const read = (path: string) => readFileSync(join(site, path), "utf8");
/** Every file under the site, by its path there, so that a stray temporary file shows. */
const files = () =>
  (
    readdirSync(site, { recursive: true, withFileTypes: true }) as Array<{
      isFile(): boolean;
      parentPath: string;
      name: string;
    }>
  )
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(site.length + 1))
    .sort();

describe("inside", () => {
  it("answers the absolute path of a path in the folder", () => {
    assert.equal(inside("/srv/site", "content/a.md"), "/srv/site/content/a.md");
    assert.equal(inside("/srv/site", "content/../a.md"), "/srv/site/a.md");
    assert.equal(inside("/srv/site", "..a.md"), "/srv/site/..a.md", "a name that starts with two dots");
    assert.equal(inside("/srv/site", "content/..md"), "/srv/site/content/..md");
  });

  for (const path of ["", ".", "..", "../x.md", "content/../../x.md", "/etc/passwd", "../site-other/x.md"]) {
    it(`refuses ${JSON.stringify(path)}, naming it`, () => {
      assert.throws(
        () => inside("/srv/site", path),
        (error: unknown) =>
          error instanceof StoreError && error.message === `The path "${path}" is outside the store's folder`,
      );
    });
  }
});

describe("applyFiles", () => {
  it("writes new files (folders made on the way), replaces old ones, and leaves no temporary file", async () => {
    await applyFiles(site, [
      { path: "content/notes/2026/a.md", content: "A\n" },
      { path: "content/kept.md", content: "changed\n" },
      { path: "media/p.bin", content: new Uint8Array([0, 255, 1]) },
    ]);
    assert.equal(read("content/notes/2026/a.md"), "A\n");
    assert.equal(read("content/kept.md"), "changed\n");
    assert.deepEqual([...readFileSync(join(site, "media/p.bin"))], [0, 255, 1]);
    assert.deepEqual(files(), ["content/kept.md", "content/notes/2026/a.md", "media/p.bin"]);
  });

  it("removes a file, and a file already gone is no failure", async () => {
    await applyFiles(site, [
      { path: "content/kept.md", remove: true },
      { path: "content/never.md", remove: true },
    ]);
    assert.deepEqual(files(), []);
  });

  it("puts back every file a failing change touched, as it was, and says why", async () => {
    writeFileSync(join(site, "content", "gone.md"), "gone\n");
    mkdirSync(join(site, "content", "a-folder"));
    await assert.rejects(
      applyFiles(site, [
        { path: "content/kept.md", content: "overwritten\n" },
        { path: "content/new.md", content: "new\n" },
        { path: "content/gone.md", remove: true },
        // A file cannot take the place of a folder: the change fails here.
        { path: "content/a-folder", content: "no\n" },
      ]),
      (error: unknown) =>
        // A path that cannot be read is refused as it is read, not taken for a new file.
        error instanceof StoreError &&
        error.message === "Could not write the site's files: EISDIR: illegal operation on a directory, read",
    );
    assert.equal(read("content/kept.md"), "kept\n");
    assert.equal(read("content/gone.md"), "gone\n");
    assert.ok(!existsSync(join(site, "content", "new.md")), "a file the change created is removed");
    assert.deepEqual(files(), ["content/gone.md", "content/kept.md"], "no temporary file is left");
  });

  it("puts back a file a failing change wrote twice as it was before the change, not as its first write", async () => {
    mkdirSync(join(site, "content", "a-folder"));
    await assert.rejects(
      applyFiles(site, [
        { path: "content/kept.md", content: "first\n" },
        { path: "content/kept.md", content: "second\n" },
        { path: "content/a-folder", content: "no\n" },
      ]),
      StoreError,
    );
    assert.equal(read("content/kept.md"), "kept\n");
  });

  it("refuses a path out of the folder with the store's own error, before writing anything", async () => {
    const outside = join(scratch, `outside-${sites}.md`);
    await assert.rejects(
      applyFiles(site, [
        { path: "content/kept.md", content: "overwritten\n" },
        { path: `../outside-${sites}.md`, content: "escaped\n" },
      ]),
      (error: unknown) =>
        error instanceof StoreError &&
        error.message === `The path "../outside-${sites}.md" is outside the store's folder`,
    );
    assert.ok(!existsSync(outside));
    assert.equal(read("content/kept.md"), "kept\n", "the first file is put back");
  });
});

describe("FolderWriter", () => {
  it("applies a change to its folder and names the folder on the status page", async () => {
    const writer = new FolderWriter(site);
    await writer.apply([{ path: "content/b.md", content: "B\n" }]);
    assert.equal(read("content/b.md"), "B\n");
    assert.deepEqual(writer.describe(), { folder: site });
  });
});
