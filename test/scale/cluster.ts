// Several real server processes on one PostgreSQL schema, posting to one local sandbox Mastodon: what
// the scale tests start, and the few HTTP calls they make (create a post through Micropub, ask an
// instance to syndicate).
import { randomBytes } from "node:crypto";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import { type ChildServer, startChildServer } from "../helpers/child-server.ts";
import { engines } from "../helpers/databases.ts";
import { eventually } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";

export const ENDPOINT_PACKAGE = "@possekit/endpoint-syndicate";
export const MASTODON_PACKAGE = "@possekit/syndicator-mastodon";

export interface SharedDatabase {
  /** DATABASE_URL for the instances: TEST_DATABASE_URL with the schema as search_path. */
  url: string;
  schema: string;
  /** Drops the schema. */
  drop(): Promise<void>;
}

/**
 * The schema the instances share. Several processes on one database need PostgreSQL (the embedded
 * PGlite lives inside one process), so without TEST_DATABASE_URL this fails and says what to set.
 */
export async function sharedPostgres(): Promise<SharedDatabase> {
  const postgres = engines.find((engine) => engine.name === "postgres");
  if (!postgres) {
    throw new Error(
      "These tests run several server processes on one database, which needs PostgreSQL: set TEST_DATABASE_URL, " +
        "e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test (CI sets it).",
    );
  }
  const location = await postgres.location();
  if (!location.schema) throw new Error("The PostgreSQL engine gave no schema of its own");
  return { url: location.url, schema: location.schema, drop: location.drop };
}

/**
 * Where a single instance keeps its data: the shared PostgreSQL when TEST_DATABASE_URL is set (as in
 * CI), else its own embedded PGlite folder.
 */
export async function singleInstanceDatabase(): Promise<{
  engine: "postgres" | "pglite";
  env: Record<string, string>;
  drop(): Promise<void>;
}> {
  const postgres = engines.find((engine) => engine.name === "postgres");
  if (!postgres) return { engine: "pglite", env: {}, drop: async () => {} };
  const location = await postgres.location();
  return { engine: "postgres", env: { DATABASE_URL: location.url }, drop: location.drop };
}

export interface Sandbox {
  mastodon: MastodonSandbox;
  /** The uid posts name in mp-syndicate-to: `${url}/@${user}`. */
  uid: string;
}

export async function startSandbox(options: { latencyMs?: number } = {}): Promise<Sandbox> {
  const mastodon = await startMastodonSandbox({
    accessToken: randomBytes(16).toString("hex"),
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  return { mastodon, uid: `${mastodon.url}/@${mastodon.user}` };
}

export interface ClusterOptions {
  count: number;
  /** The instances' DATABASE_URL and more environment. */
  env: Record<string, string>;
  sandbox?: Sandbox;
  /** Options of the endpoint plug-in. */
  endpoint?: Record<string, unknown>;
  /** More of the config file (e.g. application.rateLimit). */
  config?: Record<string, unknown>;
  /** Node's flags and a line listener for each instance (test/helpers/child-server.ts). */
  nodeArgs?: string[];
  onLine?: (line: string) => void;
}

/** `count` instances started side by side, sharing SECRET and PASSWORD as instances behind a balancer do. */
export async function startCluster(options: ClusterOptions): Promise<ChildServer[]> {
  const secret = randomBytes(24).toString("base64url");
  const password = randomBytes(9).toString("base64url");
  const config: Record<string, unknown> = {
    plugins: options.sandbox ? [ENDPOINT_PACKAGE, MASTODON_PACKAGE] : [ENDPOINT_PACKAGE],
    ...(options.endpoint ? { [ENDPOINT_PACKAGE]: options.endpoint } : {}),
    ...(options.sandbox
      ? { [MASTODON_PACKAGE]: { url: options.sandbox.mastodon.url, user: options.sandbox.mastodon.user } }
      : {}),
    ...options.config,
  };
  const env = {
    ...options.env,
    ...(options.sandbox ? { MASTODON_ACCESS_TOKEN: options.sandbox.mastodon.accessToken } : {}),
  };
  const started = await Promise.allSettled(
    Array.from({ length: options.count }, () =>
      startChildServer({
        config,
        env,
        secret,
        password,
        ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
        ...(options.onLine ? { onLine: options.onLine } : {}),
      }),
    ),
  );
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failed.reason;
  }
  return servers;
}

/** Creates a post through an instance's Micropub endpoint; returns its URL. */
export function createPost(
  server: ChildServer,
  token: string,
  post: { content: string; targets: string[]; published?: string },
): Promise<string> {
  return createPostAt(server.url, token, post);
}

/** `count` posts, one minute apart in `published` (oldest first), each naming `targets`. */
export async function createPosts(
  server: ChildServer,
  token: string,
  count: number,
  targets: string[],
  label = "Post",
): Promise<string[]> {
  const start = Date.parse("2024-01-01T00:00:00Z");
  const urls: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const published = new Date(start + i * 60_000).toISOString();
    urls.push(
      await createPost(server, token, { content: `${label} ${i + 1} of ${count}`, targets, published }),
    );
  }
  return urls;
}

/** POST {mountPath}: a batch, or one post with `sourceUrl`. */
export function syndicate(
  server: ChildServer,
  token: string,
  sourceUrl?: string,
  mountPath = "/syndicate",
): Promise<Response> {
  const query = sourceUrl ? `?source_url=${encodeURIComponent(sourceUrl)}` : "";
  return fetch(`${server.url}${mountPath}${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
}

export interface BatchBody {
  results: PostResult[];
  summary: RunSummary;
}

/** The Idempotency-Keys of POST /api/v1/statuses requests the sandbox received, with their counts. */
export function statusPostsByKey(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of sandbox.mastodon.requests) {
    if (request.method !== "POST" || request.path !== "/api/v1/statuses") continue;
    const key = request.idempotencyKey ?? "(none)";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** How many statuses the sandbox holds for each post text (a duplicate post shows as 2). */
export function statusesByText(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const status of sandbox.mastodon.statuses) counts.set(status.text, (counts.get(status.text) ?? 0) + 1);
  return counts;
}

export { until } from "../helpers/eventually.ts";

interface SchedulerHealth {
  "endpoint-syndicate"?: {
    scheduler?: { next_due_at?: string | null; last_run?: { finished_at: string | null } | null };
  };
}

/**
 * Waits until every instance's scheduler has found nothing left to do: its /health says nothing is
 * due (no send waiting, failed, in flight or stale; no lease) and no run of its is going on. From
 * then on nothing is sent without a new request, so what the targets hold is final; a post that
 * would be sent again keeps something due, and this fails after `timeoutMs` saying what is due.
 */
export async function settled(servers: readonly ChildServer[], timeoutMs = 20_000): Promise<void> {
  let last = "";
  await eventually(
    "every scheduler finds nothing due",
    async () => {
      const states = await Promise.all(
        servers.map(async (server) => {
          // The scheduler's state is told to a token's holder, not to a stranger.
          const authorization = `Bearer ${await server.token("create")}`;
          const health = (await (
            await fetch(`${server.url}/health`, { headers: { authorization } })
          ).json()) as SchedulerHealth;
          return health["endpoint-syndicate"]?.scheduler;
        }),
      );
      last = JSON.stringify(states);
      const idle = states.every(
        (state) =>
          state?.next_due_at === null && (state.last_run ?? { finished_at: "" }).finished_at !== null,
      );
      return idle ? true : undefined;
    },
    timeoutMs,
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; the schedulers said ${last}`);
  });
}

/** Stops what a test started, ignoring what was never started. */
export async function stopAll(
  servers: ChildServer[] | undefined,
  sandbox: Sandbox | undefined,
  database: { drop(): Promise<void> } | undefined,
): Promise<void> {
  await Promise.all((servers ?? []).map((server) => server.stop()));
  await sandbox?.mastodon.close();
  await database?.drop();
}
