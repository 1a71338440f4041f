// The shape of possekit.config.json. Every field has a default, so no file at all runs a working server.
import { isIP } from "node:net";
import { z } from "zod";
import { MAX_TOKEN_LIFETIME_DAYS } from "../auth/token-signer.ts";

const urlWithoutTrailingSlash = z
  .url({ protocol: /^https?$/, error: "must be an absolute http(s) URL, e.g. https://example.org" })
  .transform((value) => value.replace(/\/+$/, ""));

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** An address Express's "trust proxy" understands: an IP, a CIDR range, or a name for a range. */
const proxyAddress = z.string().refine(
  (value) => {
    if (PROXY_NAMES.has(value)) return true;
    const [address = "", bits, ...rest] = value.split("/");
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    if (bits === undefined) return true;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  },
  { error: "must be an IP address, a CIDR range (10.0.0.0/8) or loopback, linklocal, uniquelocal" },
);

export const rateLimitSchema = z.strictObject({
  /** Window of every limit, in milliseconds. */
  windowMs: z.number().int().positive().default(60_000),
  /** Requests per window to authenticated plug-in routes, per client. */
  authenticated: z.number().int().positive().default(300),
  /** Requests per window to public plug-in routes (webhooks), per client. */
  public: z.number().int().positive().default(60),
  /** Sign-in attempts per window, per client. */
  signIn: z.number().int().positive().default(10),
  /** Where counts are kept: "memory" (one instance) or "database" (shared by instances on PostgreSQL). */
  store: z.enum(["memory", "database"]).default("memory"),
});

export const applicationSchema = z.strictObject({
  name: z.string().min(1).default("possekit"),
  /** The server's public base URL; defaults to http://localhost:<port>. */
  url: urlWithoutTrailingSlash.optional(),
  port: z.number().int().min(0).max(65_535).default(3000),
  /** Interface to listen on; "0.0.0.0" for every interface (behind a proxy, in a container). */
  host: z.string().min(1).default("127.0.0.1"),
  /** Interface language; when unset, taken from each browser's Accept-Language. */
  locale: z.string().min(2).optional(),
  /** false: no database; a postgres:// URL; or a folder for the embedded PGlite. */
  database: z.union([z.literal(false), z.string().min(1)]).optional(),
  /** Folder for the embedded database and generated development secrets. */
  dataDir: z.string().min(1).default("data"),
  /** Largest request body accepted, in bytes. */
  bodyLimit: z.number().int().positive().default(100_000),
  /** Lifetime of tokens issued by the status page and `possekit token`, in days. */
  tokenLifetimeDays: z
    .number()
    .int()
    .positive()
    .max(
      MAX_TOKEN_LIFETIME_DAYS,
      `at most ${MAX_TOKEN_LIFETIME_DAYS} days (ten years); write a number of days from 1 to ${MAX_TOKEN_LIFETIME_DAYS}`,
    )
    .default(90),
  /**
   * Behind a reverse proxy: trust X-Forwarded-For from this many proxies, or from these addresses
   * (express "trust proxy"). Never `true`: any client could then choose its own address.
   */
  trustProxy: z
    .union([z.literal(false), z.number().int().min(0).max(10), z.array(proxyAddress).min(1)], {
      error: (issue) =>
        issue.input === true
          ? 'true would trust any X-Forwarded-For, so a client could pick its own address and escape every rate limit; write the number of proxies in front of the server (e.g. 1) or their addresses (e.g. ["127.0.0.1"])'
          : 'must be false, the number of proxies in front of the server (e.g. 1) or a list of their addresses (e.g. ["127.0.0.1", "10.0.0.0/8", "loopback"])',
    })
    .default(false),
  rateLimit: rateLimitSchema.prefault({}),
  /** The IndieAuth server: lifetimes of the tokens it issues to clients. */
  indieauth: z
    .strictObject({
      /** Access tokens; a client keeps working past it with its refresh token. */
      accessTokenDays: z.number().int().positive().max(365).default(7),
      /** Refresh tokens, each spent by its use and replaced. */
      refreshTokenDays: z.number().int().positive().max(3650).default(90),
    })
    .prefault({}),
});

const POST_TYPES = ["note", "article", "photo"] as const;
const PRESETS = ["hugo", "jekyll", "eleventy"] as const;

const noNul = (what: string) =>
  z
    .string({ error: `must be ${what}` })
    .min(1, { error: `must be ${what}` })
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), {
      error: "must not contain control characters",
    });

/** A repository path template: relative, inside the repository, with {slug}. */
const pathTemplate = noNul('a path inside the repository with {slug}, e.g. "content/notes/{slug}.md"')
  .refine((value) => !value.startsWith("/") && !/^[A-Za-z]:/.test(value), {
    error: 'must be relative to the repository, e.g. "content/notes/{slug}.md", not an absolute path',
  })
  .refine((value) => !value.split(/[\\/]/).includes(".."), {
    error: 'must stay inside the repository: remove "..", e.g. "content/notes/{slug}.md"',
  })
  .refine((value) => value.includes("{slug}"), {
    error: 'must contain {slug}, e.g. "content/notes/{slug}.md"',
  });

const urlTemplate = z
  .string({ error: 'must be a URL template with {slug}, e.g. "{me}notes/{slug}/"' })
  .includes("{slug}", { error: 'must contain {slug}, e.g. "{me}notes/{slug}/"' });

/** Where one kind of post goes: its file in the repository, its URL on the site. */
const postTypeSchema = z.strictObject({ path: pathTemplate.optional(), url: urlTemplate.optional() });

const gitAuthorSchema = z.strictObject({
  name: noNul('a name, e.g. "possekit"').default("possekit"),
  email: noNul('an e-mail address, e.g. "possekit@localhost"').default("possekit@localhost"),
});

/** Where published posts go (decision 0032): served by possekit itself, a folder, or a git repository. */
export const storeSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("pages") }),
    z.strictObject({
      type: z.literal("folder"),
      /** The site's source folder; relative to the config file. */
      path: noNul('the site\'s folder, e.g. "../my-site"'),
    }),
    z.strictObject({
      type: z.literal("git"),
      /** Any git remote: https (token from tokenEnv), ssh, or a local path. */
      url: noNul('a git remote, e.g. "https://github.com/me/site.git" or "/srv/git/site.git"').refine(
        (value) => !/^https?:\/\/[^/]*@/.test(value) && !value.startsWith("-"),
        {
          error:
            'must not carry credentials; write the URL without "user:token@" and put the token in the environment variable named by tokenEnv',
        },
      ),
      branch: noNul('a branch name, e.g. "main"')
        .refine(
          (value) => /^[A-Za-z0-9._/-]+$/.test(value) && !value.startsWith("-") && !value.includes(".."),
          {
            error: 'must be a plain branch name, e.g. "main"',
          },
        )
        .default("main"),
      /** A subfolder of the repository holding the site, e.g. "site". */
      path: noNul('a folder inside the repository, e.g. "site"')
        .refine((value) => !value.startsWith("/") && !value.split(/[\\/]/).includes(".."), {
          error: 'must be a folder inside the repository, e.g. "site", without ".." or a leading "/"',
        })
        .optional(),
      author: gitAuthorSchema.prefault({}),
      /** Commit messages: {action} (Create, Update, Delete, Undelete, Syndication links) and {url}. */
      message: noNul('a commit message with {action} and {url}, e.g. "{action} {url}"').default(
        "{action} {url}",
      ),
      /** The environment variable holding a token for an https remote (never written to the file). */
      tokenEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'must be an environment variable\'s name, e.g. "GIT_TOKEN"' })
        .optional(),
    }),
  ],
  { error: 'must be {"type": "pages"}, {"type": "folder", "path": "..."} or {"type": "git", "url": "..."}' },
);

export const publicationSchema = z.strictObject({
  /** Where posts are published; the default, pages, is served by possekit itself. */
  store: storeSchema.prefault({ type: "pages" }),
  /** The site generator whose paths, URLs and front matter the folder and git stores write. */
  preset: z.enum(PRESETS, { error: 'must be "hugo", "jekyll" or "eleventy"' }).optional(),
  /** Per post type: path and URL templates over the preset's. */
  postTypes: z
    .strictObject({
      note: postTypeSchema.optional(),
      article: postTypeSchema.optional(),
      photo: postTypeSchema.optional(),
    })
    .default({}),
  /** The site's URL; defaults to the application URL. Used with a trailing slash as {me}. */
  me: urlWithoutTrailingSlash.optional(),
  /** New post URLs: {me}, {slug}, {yyyy}, {MM}, {dd}. */
  postUrlPattern: z
    .string()
    .includes("{slug}", { error: "must contain {slug}" })
    .default("{me}notes/{slug}/"),
  timezone: z.string().default("UTC"),
  name: z.string().optional(),
});

/** Fetches of URLs that come from posts (photos, post pages, link-card images, client metadata). */
export const fetchSchema = z.strictObject({
  /**
   * Allow private and loopback addresses (a home network where the photos live on a NAS). Off by
   * default: a post naming http://127.0.0.1:… must not make the server read its own machine.
   */
  allowPrivate: z.boolean({ error: "must be true or false" }).default(false),
});

/** Files uploaded through Micropub (the media endpoint, multipart posts), served by the host at /media/. */
export const mediaSchema = z.strictObject({
  /** Where the files are kept; relative to the config file. Default: the data folder's media/. */
  folder: z
    .string({ error: 'must be a folder path, e.g. "data/media" or "/var/lib/possekit/media"' })
    .min(1, { error: 'must be a folder path, e.g. "data/media" or "/var/lib/possekit/media"' })
    .refine((value) => !value.includes("\0"), { error: "must not contain a NUL character" })
    .optional(),
  /** Largest file accepted, in bytes. */
  maxBytes: z
    .number({ error: "must be a number of bytes, e.g. 10000000 (10 MB)" })
    .int({ error: "must be a whole number of bytes, e.g. 10000000 (10 MB)" })
    .min(1_000, { error: "must be at least 1000 bytes; 10000000 is 10 MB" })
    .max(1_000_000_000, { error: "must be at most 1000000000 (1 GB)" })
    .default(10_000_000),
});

const DURATION = /^(\d+)(m|h|d)$/;
const DURATION_UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_EXAMPLE = 'a duration such as "1d" (daily), "6h" or "30m"';

/** "30m", "6h", "1d" in milliseconds (the schema has checked the form). */
export function durationMs(value: string): number {
  const [, amount = "0", unit = "d"] = DURATION.exec(value) ?? [];
  return Number(amount) * DURATION_UNIT_MS[unit as keyof typeof DURATION_UNIT_MS];
}

/** Backups the server makes by itself (possekit backup, on a timer), the newest `keep` kept. */
export const backupSchema = z.strictObject({
  /** How often; no scheduled backups when absent. */
  every: z
    .string({ error: `must be ${DURATION_EXAMPLE}` })
    .regex(DURATION, { error: `must be ${DURATION_EXAMPLE}`, abort: true })
    .refine((value) => durationMs(value) >= 15 * 60_000, {
      error: 'must be at least "15m": each backup copies the whole database',
    })
    .optional(),
  /** How many of the newest backups are kept; older ones are removed. */
  keep: z
    .number({ error: "must be a whole number of backups to keep, e.g. 7" })
    .int({ error: "must be a whole number of backups to keep, e.g. 7" })
    .min(1, { error: "must be at least 1, e.g. 7" })
    .max(1000, { error: "must be at most 1000" })
    .default(7),
  /** Where they are written; relative to the config file. Default: "backups" beside it. */
  folder: z
    .string({ error: 'must be a folder path, e.g. "backups" or "/var/backups/possekit"' })
    .min(1, { error: 'must be a folder path, e.g. "backups" or "/var/backups/possekit"' })
    .refine((value) => !value.includes("\0"), { error: "must not contain a NUL character" })
    .default("backups"),
});

export const configFileSchema = z
  .object({
    application: applicationSchema.prefault({}),
    publication: publicationSchema.prefault({}),
    fetch: fetchSchema.prefault({}),
    media: mediaSchema.prefault({}),
    backup: backupSchema.prefault({}),
    /** Plug-ins by package name (built in) or path (relative to the config file). */
    plugins: z.array(z.string().min(1)).default(["@possekit/endpoint-syndicate"]),
  })
  // Every other key is the options entry of a plug-in, keyed by its package name.
  .catchall(z.record(z.string(), z.unknown()));

export type ConfigFile = z.infer<typeof configFileSchema>;
export type StoreConfig = z.infer<typeof storeSchema>;
export type PostTypeName = (typeof POST_TYPES)[number];
export type PresetName = (typeof PRESETS)[number];
export type RateLimitConfig = z.infer<typeof rateLimitSchema>;
