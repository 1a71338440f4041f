import type { Server, SyndicatorPlugin } from "../contract.ts";
import { HttpError } from "../http-error.ts";
import type { PostService } from "../posts/types.ts";

/** What the routes need from the server, found at request time (plug-ins are initialised after routes exist). */
export interface MicropubContext {
  posts: PostService;
  syndicators: readonly SyndicatorPlugin[];
}

export function micropubContext(server: Server | null): MicropubContext {
  if (!server)
    throw new HttpError(
      503,
      "service_unavailable",
      "The Micropub endpoint has not been initialised by the server",
    );
  if (!server.posts)
    throw new HttpError(
      503,
      "service_unavailable",
      "This server runs without a database, and Micropub needs one to keep posts; configure application.database",
    );
  return { posts: server.posts, syndicators: server.syndicators };
}
