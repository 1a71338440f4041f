// The endpoint's `sources` (docs/sources.md) made into running post sources: each remote Micropub
// server gets its client (the token read from its environment variable at each request), keeps
// its posts as posts from elsewhere and is told of each write-back (KnownPosts.addOrigin), and is
// polled by the scheduler.
import type { Server } from "../contract/plugin.ts";
import { MicropubClient } from "../sources/micropub/micropub-client.ts";
import { MicropubSource, type MicropubSourceReport } from "../sources/micropub/micropub-source.ts";
import type { MicropubSourceOptions } from "../sources/micropub/micropub-source-options.ts";
import { micropubSourceMigrations } from "../sources/micropub/migrations.ts";
import { requestTokenFor } from "./indiekit/request-token.ts";

export interface PostSourceEnvironment {
  env: NodeJS.ProcessEnv;
  now?: () => number;
}

const withMicropubTables = new WeakSet<Server>();

/**
 * The tables of what was agreed with a Micropub server (micropub-source-state.ts), once per host:
 * the remote sources and the feeds whose site has a Micropub endpoint share them.
 */
export function addMicropubSourceTables(server: Server): void {
  if (withMicropubTables.has(server)) return;
  withMicropubTables.add(server);
  server.addMigrations(micropubSourceMigrations);
}

/** The running sources; none without a database (the page then says it needs one). */
export function startPostSources(
  server: Server,
  sources: readonly MicropubSourceOptions[],
  { env, now }: PostSourceEnvironment,
): MicropubSource[] {
  const { database, postSource, knownPosts } = server;
  if (sources.length === 0 || !database || !postSource || !knownPosts) return [];
  addMicropubSourceTables(server);
  // Ends the sources' requests at shutdown (before the scheduler stops and the database closes),
  // so that a remote that hangs never holds the server up.
  const stopping = new AbortController();
  const running = sources.map((options) => {
    const client = new MicropubClient({
      endpoint: options.endpoint,
      // Inside Indiekit, a request's own token for its own Micropub endpoint (request-token.ts).
      token: () => requestTokenFor(options.endpoint) ?? (env[options.tokenEnv]?.trim() || undefined),
      tokenSetting: options.tokenEnv,
      fetchPolicy: { allowPrivate: server.config.fetch.allowPrivate },
      signal: stopping.signal,
    });
    const source = new MicropubSource({
      name: options.name,
      pollSeconds: options.pollSeconds,
      recentPosts: options.recentPosts,
      client,
      database,
      known: knownPosts,
      posts: postSource,
      logger: server.logger,
      signal: stopping.signal,
      ...(now ? { now } : {}),
    });
    knownPosts.addOrigin(source);
    return source;
  });
  server.onShutdown(async () => {
    stopping.abort(new Error("The server is shutting down"));
    await Promise.all(running.map((source) => source.idle()));
  });
  return running;
}

/** A source as /health shows it (snake_case, ISO dates, the error that needs the user). */
export function sourceHealth(report: MicropubSourceReport): Record<string, unknown> {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    origin: report.origin,
    endpoint: report.endpoint,
    state: report.state,
    next_poll_at: iso(report.nextPollAt),
    last_poll_at: iso(report.lastPollAt),
    last_success_at: iso(report.lastSuccessAt),
    ...(report.error ? { error: report.error } : {}),
  };
}
