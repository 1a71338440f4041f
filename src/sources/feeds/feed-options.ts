// Options of one feed, an entry of the endpoint's `feeds` (decision 0034, docs/sources.md):
//
//   feeds: [{ url: "https://blog.example/feed.xml", targets: ["https://mastodon.social/@me"],
//             categories: ["posse"], backfill: 0, pollSeconds: 300,
//             micropub: { endpoint: "https://blog.example/micropub", tokenEnv: "BLOG_MICROPUB_TOKEN" } }]
//
// `micropub` is the site's own Micropub endpoint: the copies' links are written back there with a
// Micropub update (add syndication), as the endpoint does for its own posts (feed-write-back.ts).
//
// Each mistake is one line naming the option and what to write instead. Whether the targets exist
// is known only once every plug-in is installed: unknownFeedTargets() says it at start.
import { z } from "zod";
import { fromEnv, serviceUrl } from "../../contract/options/option-schemas.ts";
import { DEFAULT_TOKEN_ENV } from "../micropub/micropub-source-options.ts";

export const DEFAULT_FEED_POLL_SECONDS = 300;
export const MAX_BACKFILL = 50;
/** The newest entries one read keeps (feed-source.ts); a feed's older entries are left out. */
export const DEFAULT_MAX_ENTRIES = 300;

const whole = (min: number, max: number, example: string) => {
  const message = `must be a whole number from ${min} to ${max}, such as ${example}`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
};

const FEED_URL_MESSAGE =
  'must be the absolute http(s) URL of the feed, such as "https://blog.example/feed.xml"';

/** Feeds are read over plain http too (many small sites): private addresses are refused at fetch time. */
const feedUrl = z.string({ error: FEED_URL_MESSAGE }).refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const { protocol, username, password } = new URL(value);
    return (protocol === "https:" || protocol === "http:") && !username && !password;
  },
  { error: FEED_URL_MESSAGE },
);

const TARGETS_MESSAGE =
  'must list the uids of the targets to send new entries to, such as ["https://mastodon.social/@me"] (the Syndicate page lists them)';

const CATEGORIES_MESSAGE =
  'must be a list of category names, such as ["posse"]; only entries with one of them are sent. Remove it to send every entry';

const TOKEN_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOKEN_ENV_MESSAGE = `must name an environment variable, such as "${DEFAULT_TOKEN_ENV}"`;

const micropubOptionsSchema = z.strictObject(
  {
    /** The site's own Micropub endpoint: the copies' links are written back there. */
    endpoint: serviceUrl(),
    /** The environment variable holding a token of that endpoint with the scope update. */
    tokenEnv: z
      .string({ error: TOKEN_ENV_MESSAGE })
      .regex(TOKEN_ENV_NAME, { error: TOKEN_ENV_MESSAGE })
      .default(DEFAULT_TOKEN_ENV),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; it takes endpoint and tokenEnv`
        : 'must be an object, such as { endpoint: "https://blog.example/micropub", tokenEnv: "BLOG_MICROPUB_TOKEN" }',
  },
);

export const feedOptionsSchema = z.strictObject(
  {
    /** Where the feed is (RSS, Atom, JSON Feed, or an HTML page with an h-feed). */
    url: feedUrl,
    /** Target uids its new entries are sent to. */
    targets: z
      .array(z.string({ error: TARGETS_MESSAGE }).trim().min(1, { error: TARGETS_MESSAGE }), {
        error: TARGETS_MESSAGE,
      })
      .min(1, { error: TARGETS_MESSAGE }),
    /** Only entries with one of these categories are sent (compared without regard to case). */
    categories: z
      .array(z.string({ error: CATEGORIES_MESSAGE }).trim().min(1, { error: CATEGORIES_MESSAGE }), {
        error: CATEGORIES_MESSAGE,
      })
      .min(1, { error: CATEGORIES_MESSAGE })
      .optional(),
    /** At the first read, the newest N entries are sent; every other entry is only known. */
    backfill: whole(0, MAX_BACKFILL, "0 (the default: the first read sends nothing)").default(0),
    /** Seconds between two reads when the feed says nothing about caching. */
    pollSeconds: whole(60, 86_400, `${DEFAULT_FEED_POLL_SECONDS} (the default)`).default(
      DEFAULT_FEED_POLL_SECONDS,
    ),
    /**
     * Each read keeps the newest N entries (by date) and leaves the older ones out: a feed of a whole
     * archive is not recorded, post by post, at every read.
     */
    maxEntries: whole(MAX_BACKFILL, 5000, `${DEFAULT_MAX_ENTRIES} (the default)`).default(
      DEFAULT_MAX_ENTRIES,
    ),
    /** The site's Micropub endpoint and token: the copies' links are written back there. */
    micropub: micropubOptionsSchema.optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
          "a feed takes url, targets, categories, backfill, pollSeconds, maxEntries and micropub"
        : 'must be an object, such as { url: "https://blog.example/feed.xml", targets: ["https://mastodon.social/@me"] }',
  },
);

export type FeedOptions = z.output<typeof feedOptionsSchema>;

export const FEEDS_LIST_MESSAGE =
  'must be a list, such as [{ url: "https://blog.example/feed.xml", targets: ["https://mastodon.social/@me"] }]';

/**
 * The problems no schema of one entry sees: one feed listed twice, a token variable not set. Each
 * is [path under the feeds list, message].
 */
export function feedOptionsProblems(
  feeds: readonly FeedOptions[],
  env: NodeJS.ProcessEnv,
): Array<[(string | number)[], string]> {
  const problems: Array<[(string | number)[], string]> = [];
  const urls = new Set<string>();
  feeds.forEach((feed, index) => {
    const key = feedKeyOf(feed.url);
    if (urls.has(key))
      problems.push([[index, "url"], `lists ${feed.url} a second time; list each feed once`]);
    urls.add(key);
    // A name that is no variable's is one line already (the schema's).
    const micropub = feed.micropub;
    if (micropub && TOKEN_ENV_NAME.test(micropub.tokenEnv) && !fromEnv(env, micropub.tokenEnv))
      problems.push([
        [index, "micropub", "tokenEnv"],
        `names ${micropub.tokenEnv}, which is not set: set it to a token ${micropub.endpoint} issued with the scope update`,
      ]);
  });
  return problems;
}

/**
 * What the feed is known by (its table row, its posts' origin `feed:<key>`): the URL as configured,
 * normalised. A permanent move changes where it is fetched, never its key.
 */
export function feedKeyOf(url: string): string {
  // Also called on options that failed validation (their problems are listed all at once).
  return URL.canParse(url) ? new URL(url).href : url;
}

/** The origin of the posts a feed records. */
export const feedOrigin = (key: string) => `feed:${key}`;

/**
 * One line per target a feed names that no installed syndicator has, naming what exists instead.
 */
export function unknownFeedTargets(feeds: readonly FeedOptions[], installed: readonly string[]): string[] {
  const known = new Set(installed);
  const available = installed.length > 0 ? installed.map((uid) => `"${uid}"`).join(", ") : "none installed";
  return feeds.flatMap((feed, index) =>
    feed.targets
      .map((uid, at) => ({ uid, at }))
      .filter(({ uid }) => !known.has(uid))
      .map(
        ({ uid, at }) =>
          `endpoint-syndicate: option "feeds.${index}.targets.${at}" names "${uid}", which is no installed target; write one of ${available}, or connect that account on the Accounts page`,
      ),
  );
}
