// Decision 0032, the git store with the hugo preset, against a bare repository on disk: a Micropub create
// is a commit on the remote (author and message as configured, the message naming the post) with
// the file at the preset's path and valid front matter; a push refused because the remote moved on
// is fetched, rebased and pushed again (both commits there, nothing forced); a remote that cannot be
// reached fails the create with a JSON error and leaves neither a commit nor a post.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { pngBytes } from "../fakes/png.ts";
import { type GitRemote, git, startGitRemote } from "./git-remote.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

describe("the git store", () => {
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
    await world.close();
    remote.close();
  });

  it("commits and pushes a new post at the preset's path, the message naming it", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: { name: ["First post"], content: ["Hello, git"], "mp-slug": ["first"] },
    });
    assert.equal(response.status, 201);
    const url = response.headers.get("location");
    assert.equal(url, `${world.server.url}/articles/first/`);
    assert.deepEqual(remote.log(), [`Create ${url}`, "The site"]);
    assert.equal(
      git(remote.url, "log", "-1", "--format=%an <%ae>", "main").trim(),
      "Site Bot <bot@example.org>",
    );
    const file = remote.file("content/articles/first.md") ?? "";
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(file) ?? [];
    const data = parse(yaml ?? "") as { title: string; date: string };
    assert.deepEqual(Object.keys(data), ["title", "date"]);
    assert.equal(data.title, "First post");
    assert.ok(!Number.isNaN(Date.parse(data.date)), `a date: ${data.date}`);
    assert.equal(body, "Hello, git\n");
  });

  it("rebases on a remote that moved on and pushes again, keeping both commits", async () => {
    remote.pushFromElsewhere("content/about.md", "---\ntitle: About\n---\nAbout me\n");
    const response = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["After a move"], "mp-slug": ["moved"] },
    });
    assert.equal(response.status, 201);
    const log = remote.log();
    assert.equal(log[0], `Create ${world.server.url}/notes/moved/`);
    assert.equal(log[1], "Elsewhere: content/about.md", "the other writer's commit is kept, not overwritten");
    assert.ok(remote.file("content/about.md"));
    assert.ok(remote.file("content/notes/moved.md"));
  });

  it("commits an update and a delete, and nothing when nothing changed", async () => {
    const url = `${world.server.url}/notes/moved/`;
    const update = (body: Record<string, unknown>) =>
      fetch(`${world.server.url}/micropub`, {
        method: "POST",
        headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    assert.equal((await update({ action: "update", url, replace: { content: ["Edited"] } })).status, 204);
    assert.equal(remote.log()[0], `Update ${url}`);
    assert.match(remote.file("content/notes/moved.md") ?? "", /\nEdited\n$/);
    const before = remote.log().length;
    assert.equal((await update({ action: "update", url, replace: { content: ["Edited"] } })).status, 204);
    assert.equal(remote.log().length, before, "no empty commit");
    assert.equal((await update({ action: "delete", url })).status, 204);
    assert.equal(remote.log()[0], `Delete ${url}`);
    assert.equal(remote.file("content/notes/moved.md"), undefined);
    assert.equal((await update({ action: "undelete", url })).status, 204);
    assert.equal(remote.log()[0], `Undelete ${url}`);
    assert.ok(remote.file("content/notes/moved.md"));
  });
  it("adds an upload to the repository, named by its URL on the site", async () => {
    const png = pngBytes(3, 2);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "dot.png");
    const response = await fetch(`${world.server.url}/micropub/media`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}` },
      body: form,
    });
    assert.equal(response.status, 201);
    const location = response.headers.get("location") ?? "";
    const match = new RegExp(`^${world.server.url}/media/([A-Za-z0-9_-]+\\.png)$`).exec(location);
    assert.ok(match, location);
    const name = match[1] ?? "";
    assert.equal(remote.log()[0], `Media ${name}`);
    assert.equal(
      Number(git(remote.url, "cat-file", "-s", `main:static/media/${name}`)),
      png.length,
      "the file is in the repository",
    );
    const stored = await world.server.host.media.read(location);
    assert.deepEqual(Buffer.from(stored?.bytes ?? []), png, "a syndicator reads it by its site URL");
  });
});

describe("the git store with a remote that cannot be reached", () => {
  let world: PublishingWorld;
  before(async () => {
    world = await startPublishingWorld({
      publication: { store: { type: "git", url: "/nonexistent/possekit/site.git" }, preset: "hugo" },
      schedule: false,
    });
  });
  after(() => world.close());

  it("fails the create with a JSON error and keeps no post", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["Lost?"], "mp-slug": ["lost"] },
    });
    assert.equal(response.status, 502);
    const body = (await response.json()) as { error: string; error_description: string };
    assert.equal(body.error, "store_failed");
    assert.match(body.error_description, /^Nothing was published/);
    assert.equal(await world.server.host.posts?.findByUrl(`${world.server.url}/notes/lost/`), null);
  });
});
