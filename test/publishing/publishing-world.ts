// A server as a newcomer runs it: the real host with the syndication endpoint and its scheduler on
// (whenLive: a new post is sent once its URL answers), one Mastodon syndicator against the local
// sandbox, and whatever publication store the test gives. Nothing leaves 127.0.0.1.
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import { postMicropubJson } from "../helpers/micropub-create.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export interface PublishingWorld {
  server: TestServer;
  social: MastodonSandbox;
  uid: string;
  token: string;
  /** Micropub create (JSON); answers the response. */
  micropub(body: Record<string, unknown>): Promise<Response>;
  close(): Promise<void>;
}

export const SCHEDULE_NOBODY_WATCHING = {
  schedule: { enabled: true, whenLive: true, maxSleepMs: 100 },
  retry: { baseMs: 100, maxMs: 400 },
  targets: { checkAtStart: false },
};

export async function startPublishingWorld(
  options: { publication?: Record<string, unknown>; schedule?: boolean; env?: Record<string, string> } = {},
): Promise<PublishingWorld> {
  const social = await startMastodonSandbox({ accessToken: "social-token", user: "alice", name: "Social" });
  const target = new MastodonSyndicator({ url: social.url, user: "alice", accessToken: "social-token" });
  const server = await startTestServer({
    config: {
      ...(options.publication ? { publication: options.publication } : {}),
      plugins: ["@possekit/endpoint-syndicate"],
      ...(options.schedule === false ? {} : { "@possekit/endpoint-syndicate": SCHEDULE_NOBODY_WATCHING }),
    },
    plugins: [target],
    ...(options.env ? { env: options.env } : {}),
  });
  const token = await server.token("create update delete media");
  return {
    server,
    social,
    uid: target.info.uid,
    token,
    micropub: (body) => postMicropubJson(server.url, token, body),
    async close() {
      await server.close();
      await social.close();
    },
  };
}
