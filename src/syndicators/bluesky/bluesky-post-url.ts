// The Bluesky post a like, repost or reply is about, from its page on bsky.app:
// https://bsky.app/profile/<handle or DID>/post/<record key>.

export interface BlueskyPostAddress {
  /** A handle (alice.bsky.social) or a DID (did:plc:…), as the address names the account. */
  actor: string;
  rkey: string;
}

const pageUrl = /^https:\/\/bsky\.app\/profile\/([^/?#]+)\/post\/([A-Za-z0-9._:~-]+)\/?(?:[?#].*)?$/;

export function blueskyPostAddress(url: string): BlueskyPostAddress | undefined {
  const match = pageUrl.exec(url);
  if (!match?.[1] || !match[2]) return undefined;
  return { actor: decodeURIComponent(match[1]).replace(/^@/, ""), rkey: match[2] };
}

/** The page of a post, naming the account by its DID so that the link survives a change of handle. */
export function blueskyPostPage(did: string, rkey: string): string {
  return `https://bsky.app/profile/${did}/post/${rkey}`;
}
