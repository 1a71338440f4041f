// Decision 0038: a site that publishes only a feed chooses, with POSSE Party's <posse:post> (Atom)
// or `_posse` (JSON Feed), the text of an entry's copies: a format string, truncate, append_url, and
// a Mastodon override of them. After the baseline, the sandbox Mastodon receives exactly the text the site chose, cut to the
// instance's limit with the link kept whole, and the preview (GET {mountPath}/preview?url=) shows
// the same text. An entry with truncate: false and a text too long is never cut: the preview says
// it is over the limit and the send is refused with Mastodon's reason, shown on the post's page. A
// site that changes only its choice of text has the copy edited once.
// The user's own words saved on the page still win over the site's choice; reset brings it back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { engines } from "../../helpers/databases.ts";
import type { SiteEntry } from "./feed-site.ts";
import { eventually, type FeedWorld, startFeedWorld } from "./feed-world.ts";

const day = (n: number) => new Date(Date.UTC(2026, 2, n, 9)).toISOString();
const archive: SiteEntry[] = [
  {
    id: "tag:blog.example,2026:1",
    url: "https://blog.example/2026/03/old/",
    title: "Old post",
    content: "<p>Known before.</p>",
    published: day(1),
  },
];
const words = (count: number) => Array.from({ length: count }, (_, index) => `word${index}`).join(" ");

interface PreviewTarget {
  uid: string;
  site_text: { text?: string; truncate?: boolean; append_url?: boolean } | null;
  own_text: { text: string; source: string } | null;
  preview: { text: string; over: boolean; cut: boolean; own_text: boolean } | null;
}

for (const engine of engines)
  for (const format of ["atom", "json"] as const)
    describe(`a <posse:post> entry chooses the text each target gets (${format}, ${engine.name})`, () => {
      let world: FeedWorld | undefined;
      before(async () => {
        world = await startFeedWorld(engine, {
          format,
          prepare: (site) => {
            site.entries = [...archive];
          },
        });
      });
      after(async () => {
        await world?.close();
      });

      const endpoint = () => `${world?.server.url}/syndicate`;
      const previewOf = async (url: string): Promise<PreviewTarget> => {
        assert.ok(world);
        const response = await fetch(`${endpoint()}/preview?url=${encodeURIComponent(url)}`, {
          headers: { authorization: `Bearer ${await world.server.token()}`, accept: "application/json" },
        });
        assert.equal(response.status, 200, await response.clone().text());
        const body = (await response.json()) as { targets: PreviewTarget[] };
        const target = body.targets.find((candidate) => candidate.uid === world?.target.uid);
        assert.ok(target, "the preview names the feed's target");
        return target;
      };
      const postOf = async (url: string) => {
        const post = (await world?.posts())?.find((candidate) => candidate.url === url);
        assert.ok(post, `the entry ${url} is a post`);
        return post;
      };

      it("sends exactly the text the site chose for Mastodon, as the preview shows it", async () => {
        assert.ok(world);
        const { site, target } = world;
        const first = await world.readAt(0);
        assert.equal(first.state, "ok", first.lastError ?? "");
        assert.equal(target.sandbox.statuses.length, 0, "the baseline sends nothing");

        const long = words(120);
        const chosen: SiteEntry = {
          id: "tag:blog.example,2026:2",
          url: "https://blog.example/2026/03/chosen/",
          title: "Chosen words",
          content: `<p>${long}</p>`,
          published: day(2),
          posse: {
            format_string: "New on the blog: {{title}}",
            truncate: false,
            append_url: false,
            platform_overrides: {
              mastodon: { format_string: "{{ title }}  —  {{content}}", truncate: true, append_url: true },
              bsky: { syndicate: false },
            },
          },
        };
        site.entries = [chosen, ...archive];
        await world.nextRead();
        await eventually("the copy's link is in the post", async () => {
          const links = (await postOf(chosen.url)).properties.syndication;
          return Array.isArray(links) && links.length === 1 ? true : undefined;
        });
        assert.equal(target.sandbox.statuses.length, 1, "sent once");
        const sent = target.sandbox.statuses[0]?.text ?? "";
        // Mastodon's override: its format, cut to the instance's 500 characters, the link after it.
        assert.ok(sent.startsWith("Chosen words — word0 word1 word2"), sent);
        assert.ok(sent.endsWith(`…\n\n${chosen.url}`), sent);
        assert.ok(!sent.includes("New on the blog"), "the platform's format overrides the entry's");
        // As Mastodon counts: a link is 23 characters, whatever its length.
        const counted = sent.replace(chosen.url, "x".repeat(23)).length;
        assert.ok(counted <= 500 && counted > 450, `${counted} characters`);

        const shown = await previewOf(chosen.url);
        assert.equal(shown.preview?.text, sent, "the preview is what was sent");
        assert.equal(shown.preview?.cut, true);
        assert.equal(shown.preview?.own_text, false);
        assert.deepEqual(shown.site_text, {
          text: `Chosen words — ${long}`,
          truncate: true,
          append_url: true,
        });
        const post = await postOf(chosen.url);
        const page = await fetch(`${endpoint()}/posts/${post.id}/preview`, {
          headers: { authorization: `Bearer ${await world.server.token()}`, accept: "text/html" },
        });
        const html = await page.text();
        assert.equal(page.status, 200, html);
        assert.match(html, /chose how this text is made/, "the page says the site chose it");
        assert.match(html, /The text is made from its format string\./);
        assert.match(html, /The link to the post follows the text \(append_url\)\./);
      });

      it("edits the copy once when the site changes only its choice of text", async () => {
        assert.ok(world);
        const { site, target } = world;
        site.entries = site.entries.map((entry) =>
          entry.posse
            ? { ...entry, posse: { platform_overrides: { mastodon: { format_string: "Now: {{title}}" } } } }
            : entry,
        );
        await world.nextRead();
        await eventually("the copy is edited", async () =>
          world?.requests("PUT", /^\/api\/v1\/statuses\/\d+$/) === 1 ? true : undefined,
        );
        const edited = target.sandbox.statuses[0]?.text;
        assert.equal(edited, "Now: Chosen words");
        assert.equal((await previewOf("https://blog.example/2026/03/chosen/")).preview?.text, edited);
        await world.nextRead();
        assert.equal(world.requests("PUT", /^\/api\/v1\/statuses\/\d+$/), 1, "edited once");
      });

      it("never cuts a text the site said not to: over the limit, Mastodon's refusal is shown", async () => {
        assert.ok(world);
        const { site, target } = world;
        const whole: SiteEntry = {
          id: "tag:blog.example,2026:3",
          url: "https://blog.example/2026/03/whole/",
          title: "Whole words",
          content: `<p>${words(120)}</p>`,
          published: day(3),
          posse: { format_string: "{{content}}", truncate: false },
        };
        site.entries = [whole, ...site.entries];
        await world.nextRead();
        const post = await postOf(whole.url);
        const shown = await previewOf(whole.url);
        assert.equal(shown.preview?.text, words(120), "the whole text, never cut");
        assert.equal(shown.preview?.over, true, "the preview says it is over the limit");
        assert.equal(shown.preview?.cut, false);
        const page = await eventually("the refusal is on the post's page", async () => {
          const response = await fetch(`${endpoint()}/posts/${post.id}`, {
            headers: { authorization: `Bearer ${await world?.server.token()}`, accept: "text/html" },
          });
          const html = await response.text();
          return html.includes("Text character limit of 500 exceeded") ? html : undefined;
        });
        assert.ok(page);
        assert.equal(target.sandbox.statuses.length, 1, "nothing cut was sent in its place");
      });

      it("gives way to the user's own words saved on the page", async () => {
        assert.ok(world);
        const post = await postOf("https://blog.example/2026/03/whole/");
        const response = await fetch(`${endpoint()}/posts/${post.id}/text`, {
          method: "POST",
          redirect: "manual",
          headers: {
            authorization: `Bearer ${await world.server.token()}`,
            "content-type": "application/x-www-form-urlencoded",
            accept: "text/html",
          },
          body: new URLSearchParams({ target_uid: world.target.uid, text: "My own words" }),
        });
        assert.ok(response.status < 400, `${response.status}`);
        const shown = await previewOf(post.url);
        assert.equal(shown.preview?.text, "My own words");
        assert.equal(shown.own_text?.source, "page");
        assert.equal(shown.site_text, null, "the site's choice is not used");

        // Back to the site's choice, said as such (htmx: the target's section with its message).
        const reset = await fetch(`${endpoint()}/posts/${post.id}/text/reset`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${await world.server.token()}`,
            "content-type": "application/x-www-form-urlencoded",
            accept: "text/html",
            "hx-request": "true",
          },
          body: new URLSearchParams({ target_uid: world.target.uid }),
        });
        const section = await reset.text();
        assert.equal(reset.status, 200, section);
        assert.match(section, /again receives the text your site(&#39;|')s feed chose/);
        const back = await previewOf(post.url);
        assert.equal(back.preview?.text, words(120), "the site's text again");
        assert.equal(back.own_text, null);
      });
    });
