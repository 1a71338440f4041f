// Threads through the stand-in that answers as Meta's documentation says (dev/sandbox/
// threads-server.ts): a post is a container then a publish; an answer to threads_publish that never
// came is resolved from the container, so the retry leaves exactly one post; a refused link
// attachment is sent again with the link in the text; a photo goes by its URL; a deletion is a
// DELETE of the post; the 250-a-day quota is read; the 60-day token is refreshed once it is a day
// old, by the clock the test moves, and a token that cannot be refreshed warns a week before its end.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { listen } from "../../dev/sandbox/http-kit.ts";
import { startThreadsSandbox, type ThreadsSandbox } from "../../dev/sandbox/threads-server.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { ThreadsSyndicator } from "../../src/syndicators/threads/index.ts";
import { threadsLength } from "../../src/syndicators/threads/threads-length.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("Threads", () => {
  let sandbox: ThreadsSandbox;
  let now = Date.parse("2026-11-28T10:00:00Z");
  const clock = { now: () => now };

  before(async () => {
    sandbox = await startThreadsSandbox({
      appId: "1234567890",
      appSecret: "app-secret-value",
      now: clock.now,
    });
  });
  beforeEach(() => {
    sandbox.dropNextPublishAnswer = false;
    sandbox.refuseLinkAttachments = false;
    sandbox.refuseRefresh = false;
  });
  after(() => sandbox.close());

  const syndicator = (token = sandbox.issueLongLivedToken()) =>
    new ThreadsSyndicator(
      {
        userId: "17841400000000001",
        username: "alice",
        accessToken: token,
        apiUrl: sandbox.apiUrl,
        tokenIssuedAt: new Date(now).toISOString(),
      },
      {},
      clock,
    );

  it("publishes a container and answers the post's permalink, with the post's link as its preview", async () => {
    const before = sandbox.posts.length;
    const url = await syndicator().syndicate(note(), publication, callOptions());
    assert.equal(sandbox.posts.length, before + 1);
    const post = sandbox.posts.at(-1);
    assert.equal(url, post?.permalink);
    assert.equal(post?.text, "Hello from my site, see https://example.com/page for more");
    assert.equal(post?.linkAttachment, "https://example.org/notes/hello/");
    const paths = sandbox.requests.slice(-3).map((request) => `${request.method} ${request.path}`);
    assert.deepEqual(paths, [
      "POST /v1.0/17841400000000001/threads",
      "POST /v1.0/17841400000000001/threads_publish",
      `GET /v1.0/${post?.id}`,
    ]);
  });

  it("resolves a lost answer to threads_publish from the container: exactly one post", async () => {
    const threads = syndicator();
    const before = sandbox.posts.length;
    let saved: string | undefined;
    sandbox.dropNextPublishAnswer = true;
    const first = await threads
      .syndicate(note(), publication, {
        ...callOptions(),
        checkpoint: async (value) => {
          saved = value;
        },
      })
      .catch((error: unknown) => error);
    assert.ok(first instanceof SyndicationError, String(first));
    assert.equal(first.uncertain, true, "the outcome is unknown");
    assert.equal(sandbox.posts.length, before + 1, "Threads did publish it");
    assert.ok(saved?.includes("container"), "the container was saved before publishing");

    const url = await threads.syndicate(note(), publication, {
      ...callOptions(),
      ...(saved ? { resumeFrom: saved } : {}),
    });
    assert.equal(sandbox.posts.length, before + 1, "the retry posted nothing more");
    assert.equal(url, sandbox.posts.at(-1)?.permalink);
    const publishes = sandbox.requests.filter((request) => request.path.endsWith("/threads_publish"));
    assert.equal(publishes.at(-1)?.query.creation_id, JSON.parse(saved ?? "{}").container);
  });

  it("publishes a saved container that was not published yet, rather than making another", async () => {
    const threads = syndicator();
    const before = sandbox.containers.length;
    const created = await fetch(`${sandbox.apiUrl}/17841400000000001/threads`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.issueLongLivedToken()}` },
      body: new URLSearchParams({ media_type: "TEXT", text: "made earlier" }),
    });
    const { id } = (await created.json()) as { id: string };
    const url = await threads.syndicate(note(), publication, {
      ...callOptions(),
      resumeFrom: JSON.stringify({ container: id }),
    });
    assert.equal(sandbox.containers.length, before + 1, "no second container");
    assert.equal(sandbox.posts.at(-1)?.text, "made earlier");
    assert.equal(url, sandbox.posts.at(-1)?.permalink);
  });

  it("sends a refused link attachment again with the link in the text", async () => {
    sandbox.refuseLinkAttachments = true;
    const threads = syndicator();
    const preview = threads.preview(note(), publication);
    assert.equal(preview.permalink, "card");
    await threads.syndicate(note(), publication, callOptions());
    const post = sandbox.posts.at(-1);
    assert.equal(post?.linkAttachment, undefined);
    assert.ok(post?.text.endsWith("https://example.org/notes/hello/"), post?.text);
  });

  it("sends a photo by its public URL as an IMAGE container, with its alt text", async () => {
    await syndicator().syndicate(
      note({ photo: [{ url: "https://example.org/media/cat.jpg", alt: "A cat" }] }),
      publication,
      callOptions(),
    );
    const post = sandbox.posts.at(-1);
    assert.equal(post?.mediaType, "IMAGE");
    assert.equal(post?.imageUrl, "https://example.org/media/cat.jpg");
    const create = sandbox.requests.filter((request) => request.path.endsWith("/threads")).at(-1);
    assert.equal(create?.query.alt_text, "A cat");
  });

  it("counts text as Threads does: 500, each emoji by its UTF-8 bytes", () => {
    assert.equal(threadsLength("abc"), 3);
    assert.equal(threadsLength("👍"), 4);
    assert.equal(threadsLength("👍🏽"), 8);
    assert.equal(threadsLength("é"), 1);
    const text = `${"a".repeat(490)} ${"👍".repeat(3)}`;
    const preview = syndicator().preview({ ...note(), content: { text, html: "" } }, publication);
    assert.equal(preview.length?.limit, 500);
    assert.ok(preview.cut, "491 characters and 12 bytes of emoji do not fit");
    assert.ok(threadsLength(preview.text ?? "") <= 500);
  });

  it("deletes a copy by DELETE of its post; one already gone counts as deleted", async () => {
    const threads = syndicator();
    const url = await threads.syndicate(note(), publication, callOptions());
    const id = sandbox.posts.find((post) => post.permalink === url)?.id;
    await threads.delete(note(), publication, {
      url,
      idempotencyKey: "d",
      signal: AbortSignal.timeout(30_000),
    });
    assert.ok(id && sandbox.deleted.includes(id));
    assert.equal(
      sandbox.posts.some((post) => post.permalink === url),
      false,
    );
    await threads.delete(note(), publication, {
      url,
      idempotencyKey: "d",
      signal: AbortSignal.timeout(30_000),
    });
    const deletes = sandbox.requests.filter((request) => request.method === "DELETE");
    assert.equal(deletes.length, 1);
  });

  it("a token Threads refuses (code 190) is a refusal of the credentials: 401, not retried", async () => {
    const error = await syndicator("not-a-token")
      .syndicate(note(), publication, callOptions())
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof SyndicationError);
    assert.equal(error.status, 401);
    assert.equal(error.permanent, true);
    assert.match(error.message, /^Threads: 401 Invalid OAuth access token/);
  });

  it("edits are kept: Threads has no edit API, and nothing is sent", async () => {
    const count = sandbox.requests.length;
    await syndicator().update();
    assert.equal(sandbox.requests.length, count);
  });

  it("reads the 250-a-day publishing quota", async () => {
    const quota = await syndicator().publishingQuota({ signal: AbortSignal.timeout(30_000) });
    assert.equal(quota.total, 250);
    assert.equal(quota.used, sandbox.posts.length + sandbox.deleted.length);
  });

  it("refreshes the token once it is a day old, then posts with the new one", async () => {
    const first = sandbox.issueLongLivedToken();
    const threads = syndicator(first);
    now += 23 * HOUR;
    await threads.maintainCredentials();
    assert.equal(sandbox.requests.filter((request) => request.path === "/refresh_access_token").length, 0);
    now += 2 * HOUR;
    assert.equal(await threads.maintainCredentials(), undefined);
    const refreshes = sandbox.requests.filter((request) => request.path === "/refresh_access_token");
    assert.equal(refreshes.length, 1);
    const fresh = sandbox.tokens.at(-1);
    assert.ok(fresh && fresh.token !== first && fresh.issuedAt === now);
    await threads.syndicate(note(), publication, callOptions());
    assert.equal(sandbox.posts.at(-1)?.text.startsWith("Hello"), true);
    await threads.maintainCredentials();
    assert.equal(
      sandbox.requests.filter((request) => request.path === "/refresh_access_token").length,
      1,
      "a token refreshed just now is not refreshed again",
    );
  });

  it("warns 7 days before the end of a token that cannot be refreshed, and not before", async () => {
    const threads = syndicator();
    sandbox.refuseRefresh = true;
    now += 2 * DAY;
    assert.equal(await threads.maintainCredentials(), undefined, "52 days left: no warning yet");
    now += 51 * DAY + HOUR;
    const warning = await threads.maintainCredentials();
    assert.ok(warning, "within 7 days of the end");
    assert.match(warning.error, /has not authorized application/);
    assert.ok(warning.expiresAt.getTime() - now <= 7 * DAY);
    sandbox.refuseRefresh = false;
    now += 2 * HOUR;
    assert.equal(await threads.maintainCredentials(), undefined, "refreshed: the warning is over");
  });

  it("never carries the token through a redirect when refreshing (it is in the query)", async () => {
    const seen: string[] = [];
    const elsewhere = await listen((request, response) => {
      seen.push(request.url ?? "");
      response.end("{}");
    });
    const redirected: string[] = [];
    const redirecting = await listen((request, response) => {
      redirected.push(request.url ?? "");
      response.writeHead(302, { location: `${elsewhere.url}${request.url ?? "/"}` });
      response.end();
    });
    try {
      const threads = new ThreadsSyndicator(
        {
          userId: "1",
          username: "alice",
          accessToken: "secret-token",
          apiUrl: `${redirecting.url}/v1.0`,
          tokenIssuedAt: new Date(now).toISOString(),
        },
        {},
        { now: () => now + 2 * DAY },
      );
      await threads.maintainCredentials().catch(() => undefined);
      assert.deepEqual(seen, [], "the other origin got nothing");
      assert.equal(redirected.length, 1, "the refresh was tried");
    } finally {
      await elsewhere.close();
      await redirecting.close();
    }
  });
  it("makes a new container when the saved one expired unpublished (after 24 hours)", async () => {
    const threads = syndicator();
    const created = await fetch(`${sandbox.apiUrl}/17841400000000001/threads`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.issueLongLivedToken()}` },
      body: new URLSearchParams({ media_type: "TEXT", text: "never published" }),
    });
    const { id } = (await created.json()) as { id: string };
    now += DAY + HOUR;
    const before = sandbox.posts.length;
    await threads.syndicate(note(), publication, {
      ...callOptions(),
      resumeFrom: JSON.stringify({ container: id }),
    });
    assert.equal(sandbox.containers.find((container) => container.id === id)?.status, "EXPIRED");
    assert.equal(sandbox.posts.length, before + 1);
    assert.equal(
      sandbox.posts.at(-1)?.text.startsWith("Hello"),
      true,
      "the post's own text, in a new container",
    );
  });
});
