// Where a store's write really lands (real-path.ts), on real folders and symbolic links in a scratch
// folder: inside the site's folder it goes on; through a link that leaves it, into its .git, or
// through a link that leads nowhere it is refused with the store's error; other file-system errors
// are not taken for a refusal. The stores that call it are tested through Micropub in
// test/publishing/a-symlink-in-the-site-never-lets-a-store-write-outside-it.test.ts.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { StoreError } from "./content-store.ts";
import { assertRealPathInside } from "./real-path.ts";

const scratch = mkdtempSync(join(tmpdir(), "possekit-real-path-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const site = join(scratch, "site");
const outside = join(scratch, "site-other");
for (const folder of [join(site, "content", "notes"), join(site, ".git", "objects"), outside])
  mkdirSync(folder, { recursive: true });
mkdirSync(join(site, ".github"));
writeFileSync(join(site, "content", "notes", "kept.md"), "kept\n");
writeFileSync(join(outside, "victim.md"), "victim\n");
symlinkSync(outside, join(site, "content", "out"));
symlinkSync(join(outside, "victim.md"), join(site, "content", "notes", "evil.md"));
symlinkSync(join(site, ".git"), join(site, "content", "into-git"));
symlinkSync(join(scratch, "nowhere"), join(site, "content", "dangling"));
symlinkSync(join(site, "content", "notes"), join(site, "content", "alias"));
symlinkSync(site, join(scratch, "site-link"));
symlinkSync(scratch, join(site, "content", "up"));
symlinkSync(join(site, "content", "loop"), join(site, "content", "loop"));

const check = (path: string, root = site) => assertRealPathInside(root, join(root, path), path);
async function refused(path: string, root = site, why = path) {
  await assert.rejects(check(path, root), (error: unknown) => {
    assert.ok(error instanceof Error, why);
    assert.ok(error instanceof StoreError, String(error));
    assert.equal(error.message, `The path "${path}" leads out of the store's folder through a symbolic link`);
    assert.equal(
      error.hint,
      "remove the symbolic link from the site's repository, or point it inside the site",
    );
    return true;
  });
}

describe("a write under the store's folder", () => {
  it("goes on inside the folder: an existing file, a new one, new folders, a link that stays inside", async () => {
    await check("content/notes/kept.md");
    await check("content/notes/new.md");
    await check("content/new-folder/deeper/new.md");
    await check("content/alias/new.md");
    await check(".gitignore");
    await check(".github/workflows/build.yml");
  });

  it("goes on when the folder itself is reached through a link", async () => {
    await check("content/notes/new.md", join(scratch, "site-link"));
  });

  it("is refused through a folder or a file that links out, even to a folder whose name starts alike", async () => {
    await refused("content/out/new.md");
    await refused("content/out/victim.md");
    await refused("content/notes/evil.md");
    await refused("content/up", undefined, "the folder that holds the site");
  });

  it("is refused into .git, directly or through a link, and at the folder itself", async () => {
    await refused(".git/config");
    await refused(".git");
    await refused("content/into-git/hooks/post-checkout");
    await refused("");
  });

  it("is refused through a link that leads nowhere", async () => {
    await refused("content/dangling");
    await refused("content/dangling/new.md");
  });

  it("answers another error of the file system as it is, not as a refusal", async () => {
    await assert.rejects(check("content/notes/kept.md/below.md"), (error: NodeJS.ErrnoException) => {
      assert.ok(!(error instanceof StoreError));
      assert.equal(error.code, "ENOTDIR");
      return true;
    });
    await assert.rejects(check("content/loop"), (error: NodeJS.ErrnoException) => {
      assert.ok(!(error instanceof StoreError));
      assert.equal(error.code, "ELOOP", "a link that leads to itself");
      return true;
    });
  });
});
