// The Syndicate page's query (post-filter.ts) against rows written as the core leaves them: each state
// (awaiting, attention, waiting, all) with the posts that must and must not be in it, the site's own
// posts apart from a feed's or a remote Micropub server's, a target named by the post or by its
// ledger row, a run, words of every text property in either shape (a string or mf2's array), a URL
// however it is written, the page's offset and count, and the origins the filter offers. A slip here
// hides a post that still waits to be sent, or lists one that never will be.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/contract/database.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import {
  findPosts,
  knownOrigins,
  normalizeSearchUrl,
  OWN_ORIGIN,
  type PostFilter,
} from "../../src/syndication/reads/post-filter.ts";
import { engines } from "../helpers/databases.ts";

const A = "https://social.example/@me";
const B = "https://other.example/@me";
const GONE = "https://gone.example/@me";
const CONFIGURED = [A, B];

interface Row {
  slug: string;
  to?: string[];
  properties?: Record<string, unknown>;
  status?: "published" | "draft";
  deleted?: boolean;
  origin?: string;
  /** Ledger rows: target uid → state. */
  ledger?: Record<string, string>;
  gaveUp?: boolean;
}

for (const engine of engines) {
  describe(`the page's query finds posts by state, origin, target, run and words (${engine.name})`, () => {
    let database: Database;
    const ids: Record<string, string> = {};
    let firstRun = "";
    const find = async (filter: Omit<PostFilter, "configuredUids">, page = { offset: 0, limit: 50 }) => {
      const found = await findPosts(database, { configuredUids: CONFIGURED, ...filter }, page);
      return found;
    };
    /** The slugs of the posts found, in the page's order; the count must agree with them. */
    const slugs = async (filter: Omit<PostFilter, "configuredUids">) => {
      const found = await find(filter);
      assert.equal(found.total, found.ids.length, "the count is the list's");
      const bySlug = new Map(Object.entries(ids).map(([slug, id]) => [id, slug]));
      return found.ids.map((id) => bySlug.get(id));
    };

    const insert = async (row: Row, day: number) => {
      const properties = {
        ...row.properties,
        ...(row.to ? { "mp-syndicate-to": row.to } : {}),
      };
      const result = await database.query<{ id: string }>(
        `INSERT INTO posts (url, slug, properties, status, published, origin, deleted_at)
         VALUES ($1, $2, $3::jsonb, $4, $5::timestamptz, $6, $7::timestamptz) RETURNING id::text AS id`,
        [
          `https://site.example/notes/${row.slug}/`,
          row.slug,
          JSON.stringify(properties),
          row.status ?? "published",
          `2024-01-${String(day).padStart(2, "0")}T00:00:00Z`,
          row.origin ?? null,
          row.deleted ? "2024-02-01T00:00:00Z" : null,
        ],
      );
      const id = result.rows[0]?.id ?? "";
      ids[row.slug] = id;
      for (const [uid, state] of Object.entries(row.ledger ?? {})) {
        await database.query(
          `INSERT INTO syndication_targets (post_id, target_uid, state, idempotency_key)
           VALUES ($1::bigint, $2, $3, $4)`,
          [id, uid, state, `${row.slug}-${uid}`],
        );
      }
      if (row.gaveUp !== undefined) {
        await database.query(
          "INSERT INTO syndication_live_checks (post_id, url, gave_up) VALUES ($1::bigint, $2, $3)",
          [id, `https://site.example/notes/${row.slug}/`, row.gaveUp],
        );
      }
    };
    const run = async (slugsTouched: string[]) => {
      const result = await database.query<{ id: string }>(
        "INSERT INTO syndication_runs (kind, trigger) VALUES ('batch', 'batch') RETURNING id::text AS id",
      );
      const runId = result.rows[0]?.id ?? "";
      for (const slug of slugsTouched) {
        await database.query(
          `INSERT INTO syndication_attempts (post_id, target_uid, run_id, trigger, outcome)
           VALUES ($1::bigint, $2, $3::bigint, 'batch', 'syndicated')`,
          [ids[slug], A, runId],
        );
      }
      return runId;
    };

    before(async () => {
      database = await engine.open();
      await migrate(database, [...postMigrations, ...syndicationMigrations]);
      const rows: Row[] = [
        // Sent to A: the target left mp-syndicate-to, the ledger row stays.
        {
          slug: "sent",
          to: [],
          ledger: { [A]: "syndicated" },
          properties: { name: "Walking by the river: 100% rye, snake_case, a\\b" },
        },
        // Sent to A, refused by B.
        {
          slug: "refused",
          to: [B],
          ledger: { [A]: "syndicated", [B]: "failed" },
          properties: { content: "A heron that would not move" },
        },
        { slug: "fresh", to: [A], properties: { summary: "Fresh bread", visibility: "public" } },
        { slug: "unconfigured", to: [GONE], properties: { name: ["Otters at dusk"] } },
        // Its page never went live: the user has to look.
        { slug: "gave-up", to: [A], gaveUp: true, properties: { content: { html: "<p>Kingfisher</p>" } } },
        // Live at last: nothing is wrong with it.
        { slug: "went-live", to: [A], gaveUp: false, properties: { summary: ["Swans"] } },
        { slug: "unlisted", to: [A], properties: { visibility: "unlisted", content: { text: "Moorhen" } } },
        { slug: "draft", to: [A], status: "draft" },
        { slug: "deleted", to: [A], deleted: true, properties: { name: "Gone heron" } },
        // A feed's entry its first read only recorded: no target.
        { slug: "feed-recorded", to: [], origin: "feed:blog" },
        { slug: "feed-to-send", to: [A], origin: "feed:blog" },
        { slug: "remote", origin: "micropub:remote", properties: { name: "Remote river" } },
        // No target named any more, but a copy whose outcome nobody knows.
        { slug: "unknown", to: [], ledger: { [B]: "unknown" } },
        // A page that never went live, but nothing was ever to be sent.
        { slug: "nothing-to-send", to: [], gaveUp: true },
      ];
      for (const [index, row] of rows.entries()) await insert(row, index + 1);
      firstRun = await run(["sent", "refused"]);
      await run(["unknown"]);
    });
    after(() => database.close());

    it("awaiting: a published, public post that still names a configured target", async () => {
      assert.deepEqual(await slugs({ state: "awaiting" }), [
        "refused",
        "fresh",
        "gave-up",
        "went-live",
        "feed-to-send",
      ]);
    });

    it("attention: a failed or unknown ledger row, or a page that never went live, of a post with a target", async () => {
      assert.deepEqual(await slugs({ state: "attention" }), ["refused", "gave-up", "unknown"]);
    });

    it("waiting: awaiting with nothing wrong yet", async () => {
      assert.deepEqual(await slugs({ state: "waiting" }), ["fresh", "went-live", "feed-to-send"]);
    });

    it("all: every post with a target, named or in the ledger; of one origin, every post it knows", async () => {
      const withTarget = ["sent", "refused", "fresh", "unconfigured", "gave-up", "went-live", "unlisted"];
      assert.deepEqual(await slugs({ state: "all" }), [...withTarget, "feed-to-send", "unknown"]);
      assert.deepEqual(await slugs({ state: "all", origin: OWN_ORIGIN }), [...withTarget, "unknown"]);
      // What the page's form sends for the site's own posts (?origin=own).
      assert.deepEqual(await slugs({ state: "all", origin: "own" }), [...withTarget, "unknown"]);
      assert.deepEqual(await slugs({ state: "all", origin: "feed:blog" }), ["feed-recorded", "feed-to-send"]);
      assert.deepEqual(await slugs({ state: "all", origin: "micropub:remote" }), ["remote"]);
      assert.deepEqual(await slugs({ state: "awaiting", origin: "feed:blog" }), ["feed-to-send"]);
      assert.deepEqual(await slugs({ state: "awaiting", origin: OWN_ORIGIN }), [
        "refused",
        "fresh",
        "gave-up",
        "went-live",
      ]);
    });

    it("by target: named in mp-syndicate-to or by a ledger row; by the run that touched the post", async () => {
      assert.deepEqual(await slugs({ state: "all", target: B }), ["refused", "unknown"]);
      assert.deepEqual(await slugs({ state: "all", target: GONE }), ["unconfigured"]);
      assert.deepEqual(await slugs({ state: "all", runId: firstRun }), ["sent", "refused"]);
      assert.deepEqual(await slugs({ state: "attention", target: B, runId: firstRun }), ["refused"]);
    });

    it("by words of the name, summary or content in either shape, whatever their case", async () => {
      assert.deepEqual(await slugs({ state: "all", search: "river" }), ["sent"]);
      assert.deepEqual(await slugs({ state: "all", search: "  HERON " }), ["refused"]);
      assert.deepEqual(await slugs({ state: "all", search: "otters" }), ["unconfigured"]);
      assert.deepEqual(await slugs({ state: "all", search: "bread" }), ["fresh"]);
      assert.deepEqual(await slugs({ state: "all", search: "swans" }), ["went-live"]);
      assert.deepEqual(await slugs({ state: "all", search: "kingfisher" }), ["gave-up"]);
      assert.deepEqual(await slugs({ state: "all", search: "moorhen" }), ["unlisted"]);
      assert.deepEqual(
        await slugs({ state: "all", search: "r_ver" }),
        [],
        "a _ is a character, not a wildcard",
      );
      assert.deepEqual(await slugs({ state: "all", search: "e_c" }), ["sent"]);
      assert.deepEqual(await slugs({ state: "all", search: "100%" }), ["sent"]);
      assert.deepEqual(
        await slugs({ state: "all", search: "10%r" }),
        [],
        "a % is a character, not a wildcard",
      );
      assert.deepEqual(await slugs({ state: "all", search: "a\\b" }), ["sent"]);
      assert.deepEqual(
        await slugs({ state: "all", search: "a\\%" }),
        [],
        "a \\ is a character, not an escape",
      );
      assert.deepEqual(
        await slugs({ state: "all", search: "   " }),
        await slugs({ state: "all" }),
        "blank: no filter",
      );
    });

    it("by its URL written with a scheme, www., a query, a fragment, capitals or no trailing slash", async () => {
      for (const written of [
        "https://site.example/notes/refused/",
        "HTTPS://WWW.Site.Example/notes/refused?utm_source=x",
        "site.example/notes/refused#top",
        "/notes/refused",
      ]) {
        assert.deepEqual(await slugs({ state: "all", search: written }), ["refused"], written);
      }
      // Nothing is left of it as a URL: searched as typed, it matches no post's URL (never all of them).
      assert.deepEqual(await slugs({ state: "all", search: "https://www." }), []);
    });

    it("a search address is reduced as the query reduces every post's URL", () => {
      assert.equal(normalizeSearchUrl("  HTTPS://www.Site.Example/a/b//?q=1#f "), "site.example/a/b");
      assert.equal(normalizeSearchUrl("http://site.example/a#f?x"), "site.example/a");
      assert.equal(normalizeSearchUrl("www.site.example"), "site.example");
      assert.equal(normalizeSearchUrl("site.example/www.a/"), "site.example/www.a");
    });

    it("pages oldest first, the count being the whole list's", async () => {
      const page = await find({ state: "all" }, { offset: 2, limit: 3 });
      assert.deepEqual(page.ids, [ids.fresh, ids.unconfigured, ids["gave-up"]]);
      assert.equal(page.total, 9);
    });

    it("offers each origin of the posts from elsewhere once, in order", async () => {
      assert.deepEqual(await knownOrigins(database), ["feed:blog", "micropub:remote"]);
    });
  });
}
