// Decision 0032, the folder store with the hugo preset: a Micropub create writes the post's file at the
// preset's path with YAML front matter; a title cannot inject front matter; a draft is written as
// a draft; a delete removes the file. A store that refuses a new post fails the request with a JSON
// error and keeps nothing; one that refuses a change to a recorded post fails the request too, but
// the change is kept, shown on the status page and retried until the store takes it.
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
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

function frontMatter(file: string): { data: Record<string, unknown>; body: string } {
  const text = readFileSync(file, "utf8");
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  assert.ok(match, `front matter between --- lines:\n${text}`);
  return { data: parse(match[1] ?? "") as Record<string, unknown>, body: match[2] ?? "" };
}

describe("the folder store with the hugo preset", () => {
  let world: PublishingWorld;
  let site: string;
  before(async () => {
    site = mkdtempSync(join(tmpdir(), "possekit-site-"));
    world = await startPublishingWorld({
      publication: { store: { type: "folder", path: site }, preset: "hugo" },
      schedule: false,
    });
  });
  after(async () => {
    await world.close();
    rmSync(site, { recursive: true, force: true });
  });

  it("writes a note at content/notes/{slug}.md and an article at content/articles/, with front matter", async () => {
    const note = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["Hello from a note"], category: ["indieweb"], "mp-slug": ["hello"] },
    });
    assert.equal(note.status, 201);
    assert.equal(note.headers.get("location"), `${world.server.url}/notes/hello/`);
    const { data, body } = frontMatter(join(site, "content/notes/hello.md"));
    assert.deepEqual(Object.keys(data).sort(), ["date", "tags"]);
    assert.deepEqual(data.tags, ["indieweb"]);
    assert.equal(body, "Hello from a note\n");

    const article = await world.micropub({
      type: ["h-entry"],
      properties: { name: ["Evil\n---\nlayout: hacked\n"], content: ["x"], "mp-slug": ["evil"] },
    });
    assert.equal(article.headers.get("location"), `${world.server.url}/articles/evil/`);
    const written = frontMatter(join(site, "content/articles/evil.md"));
    assert.equal(written.data.title, "Evil\n---\nlayout: hacked\n", "the title is one value, whole");
    assert.equal(written.data.layout, undefined, "no key was injected");
    assert.equal(written.body, "x\n");
  });

  it("writes a draft with draft: true, refuses a slug that would leave the folder, removes a deleted post", async () => {
    const draft = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["later"], "post-status": ["draft"], "mp-slug": ["later"] },
    });
    assert.equal(draft.status, 201);
    assert.equal(frontMatter(join(site, "content/notes/later.md")).data.draft, true);

    const escaping = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["escape"], "mp-slug": ["../../../etc/passwd"] },
    });
    assert.equal(
      escaping.headers.get("location"),
      `${world.server.url}/notes/etc-passwd/`,
      "the slug is made safe",
    );
    assert.ok(existsSync(join(site, "content/notes/etc-passwd.md")));

    const deleted = await fetch(`${world.server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "delete", url: `${world.server.url}/notes/later/` }),
    });
    assert.equal(deleted.status, 204);
    assert.ok(!existsSync(join(site, "content/notes/later.md")), "the file is gone");
  });

  it("fails a create the store refuses with a JSON error and keeps nothing", async () => {
    // content/photos is a file: no folder can be made there.
    writeFileSync(join(site, "content/photos"), "in the way");
    const refused = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["with a photo"], photo: ["https://example.org/a.jpg"], "mp-slug": ["pic"] },
    });
    assert.equal(refused.status, 502);
    const body = (await refused.json()) as { error: string; error_description: string };
    assert.equal(body.error, "store_failed");
    assert.match(body.error_description, /^Nothing was published: the site's store refused the post/);
    assert.equal(
      await world.server.host.posts?.findByUrl(`${world.server.url}/photos/pic/`),
      null,
      "not kept",
    );
    rmSync(join(site, "content/photos"));
    const again = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["with a photo"], photo: ["https://example.org/a.jpg"], "mp-slug": ["pic"] },
    });
    assert.equal(again.status, 201, "sent again, it is made once");
    assert.equal(again.headers.get("location"), `${world.server.url}/photos/pic/`);
  });

  it("keeps an update the store refuses, shows it, and writes it when the store works again", async () => {
    const url = `${world.server.url}/notes/hello/`;
    rmSync(join(site, "content/notes"), { recursive: true });
    writeFileSync(join(site, "content/notes"), "in the way");
    const refused = await fetch(`${world.server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "update", url, replace: { content: ["Hello, edited"] } }),
    });
    assert.equal(refused.status, 502);
    const body = (await refused.json()) as { error: string; error_description: string };
    assert.match(body.error_description, /^possekit saved the change, but the site's store refused it/);
    const publishing = world.server.host.publishing;
    assert.ok(publishing);
    assert.equal((await publishing.summary()).pending, 1);

    const { cookie } = await world.server.signIn();
    const status = await (await fetch(`${world.server.url}/status`, { headers: { cookie } })).text();
    assert.match(status, /data-publishing-pending>1</);

    // Not due yet: nothing is tried before its back-off.
    assert.equal(await publishing.retryPending(new Date()), 0);
    rmSync(join(site, "content/notes"));
    mkdirSync(join(site, "content/notes"));
    assert.equal(await publishing.retryPending(new Date(Date.now() + 60_000)), 1);
    assert.equal(frontMatter(join(site, "content/notes/hello.md")).body, "Hello, edited\n");
    assert.equal((await publishing.summary()).pending, 0);
    assert.deepEqual(
      readdirSync(join(site, "content/notes")).filter((name) => name.startsWith(".")),
      [],
      "no temporary file left",
    );
  });
});
