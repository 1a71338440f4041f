// Decision 0032, the pages store (the embedded default): a post made through Micropub is live at its URL
// at once, as an h-entry page; the scheduler, with nobody watching, finds it live, sends the copy to
// the sandbox Mastodon, writes the link back, and the page shows it as u-syndication. The home page
// is an h-feed of recent posts; the Atom feed and JSON Feed list them. Drafts are not shown, a
// deleted post is gone (410), and a post's HTML cannot carry a script.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { mf2 } from "microformats-parser";
import { eventually } from "../helpers/eventually.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

type Mf2Item = { type: string[]; properties: Record<string, unknown[]>; children?: Mf2Item[] };

async function hEntryAt(url: string): Promise<Mf2Item | undefined> {
  const response = await fetch(url);
  if (response.status !== 200) return undefined;
  const parsed = mf2(await response.text(), { baseUrl: url });
  return (parsed.items as Mf2Item[]).find((item) => item.type.includes("h-entry"));
}

describe("the pages store serves each published post at its URL as an h-entry", () => {
  let world: PublishingWorld;
  before(async () => {
    world = await startPublishingWorld();
  });
  after(() => world.close());

  it("is live at once, and shows the copy's link once the scheduler has sent it", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        name: ["A walk by the river"],
        content: ["Walked by the river at dawn.\n\nSaw a heron: https://example.org/heron"],
        category: ["walks", "birds"],
        "mp-syndicate-to": [world.uid],
      },
    });
    assert.equal(response.status, 201);
    const url = response.headers.get("location") ?? "";
    assert.ok(url.startsWith(`${world.server.url}/`), `the post's URL is on this server: ${url}`);

    const entry = await hEntryAt(url);
    assert.ok(entry, "the post's URL answers an h-entry page at once");
    assert.deepEqual(entry.properties.url, [url]);
    assert.deepEqual(entry.properties.name, ["A walk by the river"]);
    assert.deepEqual(entry.properties.category, ["walks", "birds"]);
    const content = entry.properties.content?.[0] as { html: string; value: string };
    assert.match(content.value, /Walked by the river at dawn\./);
    assert.match(content.html, /<a href="https:\/\/example.org\/heron">/);
    const published = String(entry.properties.published?.[0]);
    assert.ok(!Number.isNaN(new Date(published).getTime()), `dt-published is a date: ${published}`);
    assert.equal(entry.properties.syndication, undefined, "no copy yet");

    // Nobody clicks: the scheduler finds the post live and sends it.
    const copies = await eventually("the copy's link is on the post's page", async () => {
      const found = (await hEntryAt(url))?.properties.syndication;
      return found && found.length > 0 ? found : undefined;
    });
    assert.equal(world.social.statuses.length, 1, "one copy, never two");
    assert.deepEqual(copies, [world.social.statuses[0]?.url]);
    // "Also on" names the service and the account the copy is on, not the copy's host.
    const page = await (await fetch(url)).text();
    const link = page.match(/<a class="u-syndication"[^>]*>([^<]*)<\/a>/)?.[1];
    assert.match(link ?? "", /^Mastodon: @\w+@/, `the copy's link names its account: ${link}`);
  });

  it("lists the recent posts as an h-feed on the home page, and in an Atom feed and a JSON Feed", async () => {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        content: ["A short note"],
        photo: [{ value: "https://example.org/heron.jpg", alt: "A grey heron" }],
      },
    });
    const url = response.headers.get("location") ?? "";
    const note = await hEntryAt(url);
    assert.deepEqual(note?.properties.photo, [
      { value: "https://example.org/heron.jpg", alt: "A grey heron" },
    ]);
    assert.equal(note?.properties.name, undefined, "a note has no name, and none is implied");
    const home = await fetch(`${world.server.url}/`);
    const parsed = mf2(await home.text(), { baseUrl: `${world.server.url}/` });
    const feed = (parsed.items as Mf2Item[]).find((item) => item.type.includes("h-feed"));
    assert.ok(feed, "the home page holds an h-feed");
    const entries = (feed.children ?? []).filter((item) => item.type.includes("h-entry"));
    assert.ok(
      entries.some((entry) => entry.properties.url?.includes(url)),
      "the note is in the h-feed",
    );
    assert.deepEqual(parsed.rels.alternate?.length, 2, "the feeds are advertised");

    const atom = await fetch(`${world.server.url}/feed.xml`);
    assert.match(atom.headers.get("content-type") ?? "", /^application\/atom\+xml/);
    const atomText = await atom.text();
    assert.ok(atomText.includes(`<id>${url}</id>`));
    assert.ok(atomText.includes("<title>A walk by the river</title>"));

    const json = (await (await fetch(`${world.server.url}/feed.json`)).json()) as {
      version: string;
      items: Array<{ url: string; content_html: string }>;
    };
    assert.equal(json.version, "https://jsonfeed.org/version/1.1");
    assert.equal(json.items[0]?.url, url, "newest first");
    assert.match(json.items[0]?.content_html ?? "", /A short note/);
  });

  it("shows no draft, answers 410 for a deleted post, and strips scripts from a post's HTML", async () => {
    const draft = await world.micropub({
      type: ["h-entry"],
      properties: { content: ["Not yet"], "post-status": ["draft"] },
    });
    assert.equal((await fetch(draft.headers.get("location") ?? "")).status, 404);

    const hostile = await world.micropub({
      type: ["h-entry"],
      properties: {
        content: [
          {
            html: '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:alert(2)">there</a></p>',
          },
        ],
      },
    });
    const url = hostile.headers.get("location") ?? "";
    const html = await (await fetch(url)).text();
    assert.ok(html.includes("<p>Hi <a>there</a></p>"), "kept the text, dropped the script and the handlers");
    assert.ok(!/alert\(/.test(html));

    const deleted = await fetch(`${world.server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "delete", url }),
    });
    assert.equal(deleted.status, 204);
    assert.equal((await fetch(url)).status, 410);
  });
});
