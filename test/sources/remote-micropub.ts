// The world of the remote-Micropub source's tests, all over real HTTP: a remote possekit whose
// Micropub endpoint holds the posts (it syndicates nothing itself), a gate in front of it, a
// sandbox Mastodon, and this possekit, which polls the remote through the gate, sends the posts to
// Mastodon and writes the links back there.
import { randomBytes } from "node:crypto";
import type { Database } from "../../src/contract/database.ts";
import { EndpointSyndicate } from "../../src/plugin/endpoint-syndicate.ts";
import { MicropubClient } from "../../src/sources/micropub/micropub-client.ts";
import { MicropubSource } from "../../src/sources/micropub/micropub-source.ts";
import type { Scheduler } from "../../src/syndication/due/scheduler.ts";
import { sharedDatabase, startTarget, type Target } from "../endpoint/endpoint-server.ts";
import { TestClock } from "../helpers/clock.ts";
import { eventually } from "../helpers/eventually.ts";
import { createPostAt } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { type RemoteGate, startRemoteGate } from "./remote-gate.ts";

export const SOURCE_NAME = "remote";
export const POLL_SECONDS = 300;

export interface Remote {
  server: TestServer;
  token: string;
  gate: RemoteGate;
  /** The endpoint this possekit is configured with: the gate's. */
  endpoint: string;
  /** Creates a post there naming `targets` in mp-syndicate-to; its URL. */
  create(content: string, targets: string[]): Promise<string>;
  /** The post's properties there (mf2), as q=source answers them to its own token. */
  properties(url: string): Promise<Record<string, unknown[]>>;
  close(): Promise<void>;
}

export async function startRemote(): Promise<Remote> {
  const server = await startTestServer({ config: { plugins: [] } });
  const token = await server.token("create update");
  const gate = await startRemoteGate(server.url);
  return {
    server,
    token,
    gate,
    endpoint: `${gate.url}/micropub`,
    create: (content, targets) => createPostAt(server.url, token, { content, targets }),
    async properties(url) {
      const response = await fetch(`${server.url}/micropub?q=source&url=${encodeURIComponent(url)}`, {
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      });
      if (response.status !== 200) throw new Error(`q=source answered ${response.status}`);
      return ((await response.json()) as { properties: Record<string, unknown[]> }).properties;
    },
    async close() {
      await gate.close();
      await server.close();
    },
  };
}

export interface Local {
  server: TestServer;
  plugin: EndpointSyndicate;
  source: MicropubSource;
  scheduler: Scheduler;
  /** The environment the plug-in reads the token from (change it to change the token). */
  env: Record<string, string>;
  clock: TestClock;
  /** Moves the clock on by a poll's interval and wakes the scheduler: the next poll is due. */
  nextPoll(): void;
  close(): Promise<void>;
}

export async function startLocal(
  remote: Remote,
  target: Target,
  options: {
    database?: Database;
    clock?: TestClock;
    env?: Record<string, string>;
    /** fetch.allowPrivate: a redirect from the remote may reach another server on this machine. */
    allowPrivate?: boolean;
  } = {},
): Promise<Local> {
  const tokenEnv = `REMOTE_TOKEN_${randomBytes(4).toString("hex").toUpperCase()}`;
  const env = options.env ?? { [tokenEnv]: remote.token };
  const variable = Object.keys(env)[0] ?? tokenEnv;
  // The scheduler sleeps by the wall clock: the test clock starts at the real time, so a poll
  // due "in five minutes" is five real minutes away and the scheduler waits for a nudge.
  const clock = options.clock ?? new TestClock(Date.now());
  const plugin = new EndpointSyndicate(
    {
      schedule: { enabled: true, whenLive: false },
      targets: { checkAtStart: false },
      sources: [
        {
          type: "micropub",
          name: SOURCE_NAME,
          endpoint: remote.endpoint,
          tokenEnv: variable,
          pollSeconds: POLL_SECONDS,
        },
      ],
    },
    { env, now: clock.now },
  );
  const server = await startTestServer({
    ...(options.database ? { engine: sharedDatabase(options.database) } : {}),
    config: { plugins: [], ...(options.allowPrivate ? { fetch: { allowPrivate: true } } : {}) },
    plugins: [target.syndicator(), plugin],
  });
  const source = plugin.sources[0];
  const scheduler = plugin.scheduler;
  if (!source || !scheduler) throw new Error("The endpoint started without its source or scheduler");
  return {
    server,
    plugin,
    source,
    scheduler,
    env,
    clock,
    nextPoll() {
      clock.advance(POLL_SECONDS * 1000);
      scheduler.nudge();
    },
    close: () => server.close(),
  };
}

export { eventually, startTarget, type Target };

/** Waits until the poll the clock made due now has ended (its success or failure recorded). */
export async function polled(local: Local): Promise<void> {
  const due = local.clock.now();
  await eventually("the poll ends", async () => {
    const report = await local.source.report();
    return !report.polling && (report.lastPollAt?.getTime() ?? 0) >= due ? true : undefined;
  });
}

/**
 * A source of `remote` on the test server's database, as one instance of the server runs it (the
 * micropubSourceMigrations applied): several on one database act as several instances.
 */
export function remoteSourceOn(
  local: TestServer,
  remote: Remote,
  options: { name: string; pollSeconds: number; now?: () => number },
): MicropubSource {
  const { database, knownPosts, postSource, logger } = local.host;
  if (!database || !knownPosts || !postSource) throw new Error("The host has no database");
  return new MicropubSource({
    name: options.name,
    pollSeconds: options.pollSeconds,
    recentPosts: 50,
    client: new MicropubClient({
      endpoint: remote.endpoint,
      token: () => remote.token,
      tokenSetting: "REMOTE_TOKEN",
      fetchPolicy: {},
    }),
    database,
    known: knownPosts,
    posts: postSource,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
}
