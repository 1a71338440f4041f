// A site's repository holds a symbolic link (committed by anyone who can push there): a folder of
// posts that points out of the working copy (`content/notes -> /elsewhere`), a post's own file that
// points out (`content/articles/evil.md -> /elsewhere/victim.md`), or a folder that points into
// the working copy's `.git`. A create through Micropub must then write nothing outside the working
// copy (nor into .git), fail with the store's JSON error, and leave no file behind (before, the git
// store wrote the post outside and left it there after its 502); a symbolic link that stays inside
// the folder still works. The git store against a bare repository on
// disk, and the folder store on a folder holding the same links.
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type GitRemote, startGitRemote } from "./git-remote.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

const VICTIM = "the victim's own words\n";

/** Creates a post with `slug` (an article when `name` is given) and answers the response. */
async function create(world: PublishingWorld, slug: string, name?: string): Promise<Response> {
  return world.micropub({
    type: ["h-entry"],
    properties: { content: [`The ${slug} post`], "mp-slug": [slug], ...(name ? { name: [name] } : {}) },
  });
}

async function assertRefused(response: Response): Promise<void> {
  assert.equal(response.status, 502);
  const body = (await response.json()) as { error: string; error_description: string };
  assert.match(body.error_description, /^Nothing was published/);
  assert.match(body.error_description, /leads out of the store's folder through a symbolic link/);
}

describe("a symbolic link in the git store's repository", () => {
  let remote: GitRemote;
  let world: PublishingWorld;
  let elsewhere: string;
  before(async () => {
    elsewhere = mkdtempSync(join(tmpdir(), "possekit-elsewhere-"));
    writeFileSync(join(elsewhere, "victim.md"), VICTIM);
    remote = startGitRemote();
    remote.pushSymlinkFromElsewhere("content/notes", elsewhere);
    remote.pushSymlinkFromElsewhere("content/articles/evil.md", join(elsewhere, "victim.md"));
    remote.pushSymlinkFromElsewhere("content/photos", "../.git");
    world = await startPublishingWorld({
      publication: {
        store: { type: "git", url: remote.url, author: { name: "Site Bot", email: "bot@example.org" } },
        preset: "hugo",
      },
      schedule: false,
    });
  });
  after(async () => {
    await world?.close();
    remote?.close();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("a symlinked folder that leads out of the working copy: refused, no commit", async () => {
    const before = remote.log();
    await assertRefused(await create(world, "out"));
    assert.deepEqual(remote.log(), before);
    assert.deepEqual(readdirSync(elsewhere), ["victim.md"], "no post left where the link leads");
  });

  it("a symlink at the post's own file: refused, the file it points to unchanged", async () => {
    const before = remote.log();
    await assertRefused(await create(world, "evil", "Evil"));
    assert.equal(readFileSync(join(elsewhere, "victim.md"), "utf8"), VICTIM);
    assert.deepEqual(remote.log(), before);
  });

  it("a symlinked folder that leads into .git: refused", async () => {
    const before = remote.log();
    await assertRefused(
      await world.micropub({
        type: ["h-entry"],
        properties: { content: ["Into git"], "mp-slug": ["config"], photo: ["https://example.org/p.jpg"] },
      }),
    );
    assert.deepEqual(remote.log(), before);
  });

  it("nothing was ever written outside the working copy, and a public post still goes out", async () => {
    assert.deepEqual(readdirSync(elsewhere), ["victim.md"]);
    const response = await create(world, "fine", "Fine");
    assert.equal(response.status, 201, await response.text());
    assert.match(remote.file("content/articles/fine.md") ?? "", /The fine post/);
  });
});

describe("a symbolic link in the folder store's folder", () => {
  let world: PublishingWorld;
  let site: string;
  let elsewhere: string;
  before(async () => {
    site = mkdtempSync(join(tmpdir(), "possekit-site-"));
    elsewhere = mkdtempSync(join(tmpdir(), "possekit-elsewhere-"));
    writeFileSync(join(elsewhere, "victim.md"), VICTIM);
    mkdirSync(join(site, "content/articles"), { recursive: true });
    symlinkSync(elsewhere, join(site, "content/notes"));
    symlinkSync(join(elsewhere, "victim.md"), join(site, "content/articles/evil.md"));
    mkdirSync(join(site, "content/real-photos"), { recursive: true });
    symlinkSync("real-photos", join(site, "content/photos"));
    world = await startPublishingWorld({
      publication: { store: { type: "folder", path: site }, preset: "hugo" },
      schedule: false,
    });
  });
  after(async () => {
    await world?.close();
    rmSync(site, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("refuses both, and leaves the folder they point to as it was", async () => {
    await assertRefused(await create(world, "out"));
    await assertRefused(await create(world, "evil", "Evil"));
    assert.deepEqual(readdirSync(elsewhere), ["victim.md"]);
    assert.equal(readFileSync(join(elsewhere, "victim.md"), "utf8"), VICTIM);
    assert.ok(!existsSync(join(elsewhere, "out.md")));
  });

  it("a symbolic link that stays inside the folder still works", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["Inside"], "mp-slug": ["inside"], photo: ["https://example.org/p.jpg"] },
    });
    assert.equal(response.status, 201, await response.text());
    assert.match(readFileSync(join(site, "content/real-photos/inside.md"), "utf8"), /Inside/);
  });
});
