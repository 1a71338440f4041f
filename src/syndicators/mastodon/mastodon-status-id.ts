// Likes, boosts and replies act on a status by its id on our instance. A status of our instance
// shows its id in its address; any other is found (and fetched, if remote) through the search API.
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { MastodonApi } from "./mastodon-api.ts";

/** The id in https://instance/@user/123 or https://instance/users/user/statuses/123 on our instance. */
export function localStatusId(instanceUrl: string, url: string): string | undefined {
  const address = new URL(url);
  if (address.origin !== new URL(instanceUrl).origin) return undefined;
  const match = /^\/(?:@[^/]+|users\/[^/]+\/statuses)\/(\d+)\/?$/.exec(address.pathname);
  return match?.[1];
}

export type StatusAction = "like" | "boost" | "reply to";

export async function resolveStatusId(
  api: MastodonApi,
  instanceUrl: string,
  url: string,
  action: StatusAction,
): Promise<string> {
  const local = localStatusId(instanceUrl, url);
  if (local) return local;
  const found = await api.findStatus(url);
  if (found) return found.id;
  throw new SyndicationError(
    `Mastodon: cannot ${action} ${url}: ${new URL(instanceUrl).host} does not know it as a status; remove Mastodon from this post's targets or point it at a Mastodon status`,
    { permanent: true },
  );
}
