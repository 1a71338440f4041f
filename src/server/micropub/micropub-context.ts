import { HttpError, noDatabase } from "../../contract/http-error.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { HostServer } from "../host-server.ts";
import type { PostService } from "../posts/post-service-interface.ts";

/** What the routes need from the server, found at request time (plug-ins are initialised after routes exist). */
export interface MicropubContext {
  posts: PostService;
  syndicators: readonly SyndicatorPlugin[];
  /** Saves mp-syndicate-thread's choices where the syndication core keeps them (decision 0064). */
  saveThreadChoices: (postUrl: string, choices: Readonly<Record<string, boolean | null>>) => Promise<void>;
}

/** What configuration alone answers (q=config, q=syndicate-to): no database needed. */
export interface MicropubConfiguration {
  syndicators: readonly SyndicatorPlugin[];
  /** The media endpoint's absolute URL (q=config's media-endpoint). */
  mediaEndpoint: string;
  /** Absent when the server runs without a database. */
  posts: PostService | undefined;
}

export function initialised(server: HostServer | null): HostServer {
  if (!server)
    throw new HttpError(
      503,
      "service_unavailable",
      "The Micropub endpoint has not been initialised by the server",
    );
  return server;
}

export function micropubConfiguration(server: HostServer | null, mountPath: string): MicropubConfiguration {
  const found = initialised(server);
  const base = found.config.application.url.replace(/\/+$/, "");
  return {
    syndicators: found.syndicators,
    posts: found.posts ?? undefined,
    mediaEndpoint: `${base}${mountPath.replace(/\/+$/, "")}/media`,
  };
}

/** Posts need a database; without one the answer is 501, as the syndication endpoint's. */
export const withoutDatabase = () =>
  noDatabase(
    "This server runs without a database, and Micropub needs one to keep posts; configure application.database",
  );

export function micropubContext(server: HostServer | null): MicropubContext {
  const found = initialised(server);
  if (!found.posts) throw withoutDatabase();
  return {
    posts: found.posts,
    syndicators: found.syndicators,
    saveThreadChoices: async (postUrl, choices) => {
      await found.saveThreadChoices?.(postUrl, choices);
    },
  };
}
