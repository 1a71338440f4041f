// The real host with the syndication endpoint, and real Mastodon syndicators pointed at local
// sandbox Mastodon servers, plus the few HTTP calls a user makes: create a post through Micropub,
// read it back with q=source, and ask the endpoint to syndicate.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import type { SandboxSoftware } from "../../dev/sandbox/mastodon-software.ts";
import type { Database } from "../../src/contract/database.ts";
import type { SyndicatorPlugin } from "../../src/contract/plugin.ts";
import { type EndpointEnvironment, EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import type { Syndication } from "../../src/syndication/syndication.ts";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import type { Engine } from "../helpers/databases.ts";
import { createPostAt, type NewPost } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export type { NewPost } from "../helpers/micropub-create.ts";

export const PLUGIN_PACKAGE = "@possekit/endpoint-syndicate";

/** A sandbox Mastodon server and the real syndicator that posts to it. */
export interface Target {
  sandbox: MastodonSandbox;
  /** The syndicator's uid, as a post names it in mp-syndicate-to. */
  uid: string;
  syndicator(): MastodonSyndicator;
}

export async function startTarget(
  options: { user?: string; latencyMs?: number; software?: SandboxSoftware } = {},
): Promise<Target> {
  const accessToken = randomBytes(12).toString("hex");
  const sandbox = await startMastodonSandbox({
    accessToken,
    ...(options.user ? { user: options.user } : {}),
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
    ...(options.software ? { software: options.software } : {}),
  });
  const syndicator = () =>
    new MastodonSyndicator({
      url: sandbox.url,
      user: sandbox.user,
      accessToken,
      ...(options.software ? { software: options.software } : {}),
    });
  return { sandbox, uid: syndicator().info.uid, syndicator };
}

/** Several sandboxes share one account name, so that a second one is told apart by its own URL. */
export async function startTargets(count: number, options: { latencyMs?: number } = {}): Promise<Target[]> {
  return Promise.all(Array.from({ length: count }, () => startTarget(options)));
}

export interface EndpointServer {
  server: TestServer;
  url: string;
  /** `${url}/syndicate` */
  endpoint: string;
  /** A token with the scopes create and update. */
  token: string;
  /** Creates a post through Micropub (form-encoded, as most clients do) and returns its URL. */
  createPost(post: NewPost): Promise<string>;
  /** q=source for one post: its mf2 properties. */
  source(url: string): Promise<Record<string, unknown[]>>;
  /**
   * POST {mountPath}`query`, with Accept: application/json unless `init` says otherwise, and the
   * token as Bearer unless `bearer` is false (for requests that carry another credential or none).
   */
  syndicate(query?: string, init?: RequestInit, bearer?: boolean): Promise<Response>;
  /** The core of the installed endpoint plug-in. */
  syndication(): Syndication;
  close(): Promise<void>;
}

export interface EndpointServerOptions {
  engine: Engine;
  targets: Target[];
  /** Options of the endpoint plug-in (its entry in the config file). */
  pluginOptions?: Record<string, unknown>;
  /** More of the config file (merged over the defaults). */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Use this open database instead of a fresh one (it is not closed by close()). */
  database?: Database;
  /** Other syndicators installed after the targets' (a Micropub or Bluesky one, say). */
  syndicators?: SyndicatorPlugin[];
  /**
   * The clock of the core and its scheduler (backoffs, live checks, stale claims, the scheduler's
   * sleeps): the test moves it instead of waiting (ServerClock, test/schedule/scheduled-server.ts).
   */
  clock?: NonNullable<EndpointEnvironment["time"]>;
}

/** A database shared by servers started one after another, as after a restart with a changed config. */
export function sharedDatabase(database: Database): Engine {
  const kept: Database = { ...database, close: async () => {} };
  const unused = () => Promise.reject(new Error("not used"));
  return { name: "pglite", open: async () => kept, openBlank: unused, location: unused };
}

export async function startEndpointServer(options: EndpointServerOptions): Promise<EndpointServer> {
  const clock = options.clock;
  // With a clock, the plug-in is installed as an instance that tells time by it; else by its name
  // in the config file, as a user installs it.
  const plugin = clock
    ? new EndpointSyndicate(options.pluginOptions ?? {}, { env: process.env, time: clock })
    : undefined;
  const server = await startTestServer({
    engine: options.database ? sharedDatabase(options.database) : options.engine,
    config: {
      plugins: plugin ? [] : [PLUGIN_PACKAGE],
      ...(options.pluginOptions && !plugin ? { [PLUGIN_PACKAGE]: options.pluginOptions } : {}),
      ...options.config,
    },
    plugins: [
      ...options.targets.map((target) => target.syndicator()),
      ...(options.syndicators ?? []),
      ...(plugin ? [plugin] : []),
    ],
    ...(options.env ? { env: options.env } : {}),
  });
  const token = await server.token("create update");
  const endpoint = `${server.url}/syndicate`;
  return {
    server,
    url: server.url,
    endpoint,
    token,
    createPost: (post) => createPostAt(server.url, token, post),
    async source(url) {
      const response = await fetch(`${server.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      if (response.status !== 200)
        throw new Error(`q=source answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { properties: Record<string, unknown[]> }).properties;
    },
    syndicate(query = "", init = {}, bearer = true) {
      const headers = new Headers(init.headers);
      if (bearer && !headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
      if (!headers.has("accept")) headers.set("accept", "application/json");
      return fetch(`${endpoint}${query}`, { method: "POST", ...init, headers });
    },
    syndication() {
      const plugin = server.host.plugins.find((p): p is EndpointSyndicate => p instanceof EndpointSyndicate);
      if (!plugin?.syndication) throw new Error("The endpoint plug-in has no syndication core");
      return plugin.syndication;
    },
    close: () => server.close(),
  };
}

/** The world most endpoint tests share: sandbox Mastodon targets and a server that sends to them. */
export async function startWithTargets(
  count: number,
  server: Omit<EndpointServerOptions, "targets">,
  targetOptions: { latencyMs?: number } = {},
): Promise<{ targets: Target[]; app: EndpointServer }> {
  const targets = await startTargets(count, targetOptions);
  try {
    return { targets, app: await startEndpointServer({ ...server, targets }) };
  } catch (error) {
    await closeAll(...targets);
    throw error;
  }
}

/** The same world with one target. */
export async function startWithOneTarget(
  engine: Engine,
  server: Omit<EndpointServerOptions, "engine" | "targets"> = {},
): Promise<{ target: Target; app: EndpointServer }> {
  const { targets, app } = await startWithTargets(1, { engine, ...server });
  return { target: targets[0] as Target, app };
}

/** Closes the server, then the targets, so that nothing the server still sends finds a target gone. */
export async function closeServerThenTargets(
  app: EndpointServer | undefined,
  ...targets: Array<Target | undefined>
): Promise<void> {
  await app?.close();
  await closeAll(...targets);
}

export interface BatchBody {
  results: PostResult[];
  summary: RunSummary;
}

/** The status texts a sandbox received, oldest first. */
export function texts(target: Target): string[] {
  return target.sandbox.statuses.map((status) => status.text);
}

export { until } from "../helpers/eventually.ts";

/** Closes what a test started, ignoring what was never started. */
export async function closeAll(
  ...things: Array<{ close(): Promise<void> } | { sandbox: MastodonSandbox } | undefined>
): Promise<void> {
  await Promise.all(
    things.map((thing) => {
      if (!thing) return undefined;
      return "sandbox" in thing ? thing.sandbox.close() : thing.close();
    }),
  );
}

/** Asserts an error answer: its status, the JSON {error, error_description}, and returns the description. */
export async function assertError(response: Response, status: number, error: string): Promise<string> {
  const body = (await response.json()) as { error?: unknown; error_description?: unknown };
  assert.equal(response.status, status, JSON.stringify(body));
  assert.equal(body.error, error);
  assert.equal(typeof body.error_description, "string");
  return body.error_description as string;
}
