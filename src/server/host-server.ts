// The server as the host's own plug-ins see it (the Micropub endpoint): the contract's Server, and
// the post service that only the host hands out.
import type { Server } from "../contract/plugin.ts";
import type { PostService } from "./posts/post-service-interface.ts";

export interface HostServer extends Server {
  /** null without a database. */
  readonly posts: PostService | null;
  /** Hands Micropub's mp-syndicate-thread to the plug-ins that keep thread choices (decision 0064). */
  saveThreadChoices?(postUrl: string, choices: Readonly<Record<string, boolean | null>>): Promise<void>;
}
