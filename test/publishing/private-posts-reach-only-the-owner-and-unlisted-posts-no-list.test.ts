// Micropub's `visibility` with the pages store (the default): a stranger asks for a private post at
// its URL, on the home page and in both feeds, and finds nothing (404, exactly as a URL with no
// post: not 403, not 410 once deleted, not a redirect to the URL with its slash). The signed-in
// owner reads it, never from a shared cache. An unlisted post is served at its URL and listed
// nowhere. Neither is ever syndicated, by the scheduler nor by a forced request, while a public
// post published after them is; and a copied post made private keeps its copy as it was: words
// written after it was made private never reach the copy.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import { healthOf } from "../helpers/health.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

describe("private and unlisted posts on the pages store", () => {
  let world: PublishingWorld;
  let privateUrl: string;
  let unlistedUrl: string;
  let deletedPrivateUrl: string;
  let publicUrl: string;
  let owner: string;

  async function create(content: string, visibility?: string): Promise<string> {
    const response = await world.micropub({
      type: ["h-entry"],
      properties: {
        content: [content],
        "mp-syndicate-to": [world.uid],
        ...(visibility ? { visibility: [visibility] } : {}),
      },
    });
    assert.equal(response.status, 201, await response.text());
    return response.headers.get("location") ?? "";
  }

  /** What a stranger gets: the status, the body, and a redirect's target (never followed). */
  async function asStranger(url: string) {
    const response = await fetch(url, { redirect: "manual" });
    return {
      status: response.status,
      body: await response.text(),
      location: response.headers.get("location"),
    };
  }

  before(async () => {
    world = await startPublishingWorld();
    privateUrl = await create("Private diary: the door code is 4711", "private");
    unlistedUrl = await create("Unlisted: the party is on Friday", "unlisted");
    deletedPrivateUrl = await create("Private and then deleted", "private");
    const deleted = await fetch(`${world.server.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "delete", url: deletedPrivateUrl }),
    });
    assert.equal(deleted.status, 204, await deleted.text());
    publicUrl = await create("A public note for everyone");
    owner = (await world.server.signIn()).cookie;
  });
  after(() => world?.close());

  it("a private post is a 404 to a stranger, as a URL with no post, and no redirect gives it away", async () => {
    const nowhere = await asStranger(`${world.server.url}/notes/no-such-post/`);
    assert.equal(nowhere.status, 404);
    for (const url of [privateUrl, privateUrl.replace(/\/$/, ""), deletedPrivateUrl]) {
      const got = await asStranger(url);
      assert.equal(got.status, 404, url);
      assert.equal(got.location, null, `${url}: no redirect`);
      assert.ok(!got.body.includes("4711") && !got.body.includes("Private"), url);
      const path = new URL(url).pathname;
      assert.equal(
        got.body,
        nowhere.body.replace("/notes/no-such-post/", path),
        `${url}: the same answer as a URL with no post`,
      );
    }
  });

  it("the signed-in owner reads the private post, kept from shared caches and search engines", async () => {
    const response = await fetch(privateUrl, { headers: { cookie: owner } });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /the door code is 4711/);
    assert.equal(response.headers.get("cache-control"), "private, no-store");
    assert.equal(response.headers.get("x-robots-tag"), "noindex");
    const deleted = await fetch(deletedPrivateUrl, { headers: { cookie: owner } });
    assert.equal(deleted.status, 410, "the owner is told it is gone");
  });

  it("an unlisted post is served at its URL to anyone", async () => {
    const got = await asStranger(unlistedUrl);
    assert.equal(got.status, 200);
    assert.match(got.body, /the party is on Friday/);
  });

  it("neither is listed on the home page or in the feeds, for a stranger or the owner", async () => {
    for (const path of ["/", "/feed.xml", "/feed.json"]) {
      for (const headers of [{}, { cookie: owner }] as Array<Record<string, string>>) {
        const response = await fetch(`${world.server.url}${path}`, { headers });
        assert.equal(response.status, 200, path);
        const body = await response.text();
        assert.ok(body.includes(publicUrl), `${path} lists the public post`);
        for (const hidden of [privateUrl, unlistedUrl, "4711", "party is on Friday"])
          assert.ok(!body.includes(hidden), `${path} does not list ${hidden}`);
      }
    }
  });

  it("a public post among many hidden ones still fills the list", async () => {
    for (let index = 0; index < 45; index++) await create(`Hidden ${index}`, "private");
    const feed = (await (await fetch(`${world.server.url}/feed.json`)).json()) as {
      items: Array<{ url: string }>;
    };
    assert.ok(
      feed.items.some((item) => item.url === publicUrl),
      "the public post published before 45 private ones is still in the feed",
    );
  });

  it("is never syndicated: the scheduler sends only the public post, and a forced send is skipped", async () => {
    await eventually("the public post is copied", async () =>
      world.social.statuses.some((status) => status.text.includes("A public note for everyone"))
        ? true
        : undefined,
    );
    const forced = await fetch(`${world.server.url}/syndicate?source_url=${encodeURIComponent(privateUrl)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, accept: "application/json" },
    });
    const result = (await forced.json()) as { targets?: Array<{ status: string; error?: string }> };
    assert.equal(result.targets?.[0]?.status, "skipped", JSON.stringify(result));
    assert.match(result.targets?.[0]?.error ?? "", /private/);
    const unlisted = await fetch(
      `${world.server.url}/syndicate?source_url=${encodeURIComponent(unlistedUrl)}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${world.token}`, accept: "application/json" },
      },
    );
    const unlistedResult = (await unlisted.json()) as { targets?: Array<{ status: string; error?: string }> };
    assert.equal(unlistedResult.targets?.[0]?.status, "skipped", JSON.stringify(unlistedResult));
    assert.match(unlistedResult.targets?.[0]?.error ?? "", /unlisted/);
    assert.deepEqual(
      world.social.statuses.map((status) => status.text).filter((text) => !text.includes("A public note")),
      [],
      "no copy of a private or unlisted post",
    );
    // Nothing is left due: a hidden post naming a target would keep the scheduler waking for it.
    type Health = { "endpoint-syndicate": { scheduler: { next_due_at: string | null } } };
    await eventually("the scheduler finds nothing due", async () =>
      (await healthOf<Health>(world.server))["endpoint-syndicate"].scheduler.next_due_at === null
        ? true
        : undefined,
    );
  });

  it("a copied post made private: its copy is not edited with what was written since", async () => {
    const url = await create("Visible words about the weather");
    const copy = await eventually("the post is copied", async () =>
      world.social.statuses.find((status) => status.text.includes("Visible words")),
    );
    const response = await world.micropub({
      action: "update",
      url,
      replace: { content: ["Private words: the door code is 4711"], visibility: ["private"] },
    });
    assert.ok(response.status === 200 || response.status === 204, await response.text());
    const database = world.server.host.database;
    assert.ok(database);
    // The core has taken the change in (the trigger's note of it is drained by the run that plans it).
    await eventually("the change is taken in", async () => {
      const { rows } = await database.query(
        "SELECT 1 FROM syndication_post_changes c JOIN posts p ON p.id = c.post_id WHERE p.url = $1",
        [url],
      );
      return rows.length === 0 ? true : undefined;
    });
    const { rows } = await database.query<{ state: string }>(
      `SELECT o.state FROM syndication_operations o JOIN posts p ON p.id = o.post_id
        WHERE p.url = $1 AND o.operation = 'update' AND o.state <> 'cancelled'`,
      [url],
    );
    assert.deepEqual(rows, [], "no update of the copy is planned or made");
    assert.equal(copy.editedAt, null);
    assert.match(copy.text, /Visible words/);
    assert.ok(!copy.text.includes("4711"));
  });
});
