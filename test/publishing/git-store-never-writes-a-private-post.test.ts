// Micropub's `visibility` with the git store (a bare repository on disk as the site's remote): a
// static site serves every file it has to anyone, so a private post is never written (no commit,
// no file), a post made private has its file removed, and an unlisted post is written marked so
// (`visibility: unlisted`, and Hugo's `build: {list: never}` keeps it out of every list).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { type GitRemote, startGitRemote } from "./git-remote.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

const frontMatterOf = (file: string) =>
  parse(/^---\n([\s\S]*?)\n---\n/.exec(file)?.[1] ?? "") as Record<string, unknown>;

describe("the git store and a post's visibility", () => {
  let remote: GitRemote;
  let world: PublishingWorld;
  before(async () => {
    remote = startGitRemote();
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
  });

  const create = async (slug: string, visibility?: string) => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        content: [`The ${slug} post`],
        "mp-slug": [slug],
        ...(visibility ? { visibility: [visibility] } : {}),
      },
    });
    assert.equal(response.status, 201, await response.text());
    return response.headers.get("location") ?? "";
  };

  it("never commits a private post", async () => {
    const before = remote.log();
    await create("secret", "private");
    assert.deepEqual(remote.log(), before, "no commit");
    assert.equal(remote.file("content/notes/secret.md"), undefined);
  });

  it("removes the file of a post made private", async () => {
    const url = await create("was-public");
    assert.ok(remote.file("content/notes/was-public.md"), "written while public");
    const response = await world.micropub({ action: "update", url, replace: { visibility: ["private"] } });
    assert.ok(response.status === 200 || response.status === 204, await response.text());
    assert.equal(remote.file("content/notes/was-public.md"), undefined, "gone from the site");
    assert.equal(remote.log()[0], `Update ${url}`);
  });

  it("writes an unlisted post marked unlisted and kept out of Hugo's lists", async () => {
    await create("quiet", "unlisted");
    const data = frontMatterOf(remote.file("content/notes/quiet.md") ?? "");
    assert.equal(data.visibility, "unlisted");
    assert.deepEqual(data.build, { list: "never" });
  });
});
