// Decision 0032, end to end with real software and no mock of our own code: possekit with the git store
// and the hugo preset pushes a Micropub post to a bare repository on disk; the test deploys as a
// host would (a clone of the remote built by Debian's Hugo, served on 127.0.0.1); the scheduler,
// with nobody watching, waits until the post is live there, sends the copy to the sandbox Mastodon
// and commits the link into the post's front matter; a rebuild shows it as u-syndication.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mf2 } from "microformats-parser";
import { parse } from "yaml";
import { until } from "../helpers/eventually.ts";
import { type GitRemote, startGitRemote } from "./git-remote.ts";
import { type HugoSite, startHugoSite } from "./hugo-site.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

type Mf2Item = { type: string[]; properties: Record<string, unknown[]> };

describe("a post through possekit, the git store and a Hugo site", () => {
  let remote: GitRemote;
  let site: HugoSite;
  let world: PublishingWorld;
  before(async () => {
    remote = startGitRemote();
    site = await startHugoSite(remote);
    world = await startPublishingWorld({
      publication: { me: site.url, store: { type: "git", url: remote.url }, preset: "hugo" },
    });
  });
  after(async () => {
    await world.close();
    await site.close();
    remote.close();
  });

  it("reaches the built site, and the built site shows its copy after the write-back", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        name: ["Built by Hugo"],
        content: ["A post that travels: Micropub, git, Hugo, Mastodon, and back."],
        category: ["posse"],
        "mp-slug": ["built-by-hugo"],
        "mp-syndicate-to": [world.uid],
      },
    });
    assert.equal(response.status, 201);
    const url = response.headers.get("location") ?? "";
    assert.equal(url, `${site.url}articles/built-by-hugo/`);
    assert.equal(remote.log()[0], `Create ${url}`);
    const file = remote.file("content/articles/built-by-hugo.md") ?? "";
    const data = parse(/^---\n([\s\S]*?)\n---\n/.exec(file)?.[1] ?? "") as Record<string, unknown>;
    assert.equal(data.title, "Built by Hugo");
    assert.deepEqual(data.tags, ["posse"]);
    assert.equal(world.social.statuses.length, 0, "nothing is sent before the post is live");

    // The deploy.
    site.build();
    const built = site.page("/articles/built-by-hugo/");
    assert.ok(built, "Hugo published the post where possekit said it would be");

    // The scheduler sees it live, sends the copy and writes the link back: one commit.
    await until("the write-back commit", () => remote.log()[0]?.startsWith("Syndication links") === true);
    assert.equal(world.social.statuses.length, 1);
    const copy = world.social.statuses[0]?.url;
    assert.ok(copy);

    site.build();
    const page = site.page("/articles/built-by-hugo/") ?? "";
    const entry = (mf2(page, { baseUrl: url }).items as Mf2Item[]).find((item) =>
      item.type.includes("h-entry"),
    );
    assert.ok(entry, "the built page is an h-entry");
    assert.deepEqual(entry.properties.url, [url]);
    assert.deepEqual(entry.properties.name, ["Built by Hugo"]);
    assert.deepEqual(entry.properties.category, ["posse"]);
    assert.deepEqual(entry.properties.syndication, [copy], "the copy's link on the site");
  });
});
