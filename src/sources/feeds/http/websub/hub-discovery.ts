// Where a feed says it is pushed from (W3C WebSub 4, Discovery): the HTTP `Link` header first, then
// the document: Atom/RSS `<link rel="hub">` and `rel="self"`, an HTML page's `<link>`, JSON Feed's
// `hubs`. The feed source calls this on each fetched answer.

export interface WebSubDiscovery {
  /** Every hub named (absolute URLs, in order, no duplicates); empty when the feed is not pushed. */
  hubs: string[];
  /** The topic URL: the feed's self link, else the URL fetched. */
  self: string;
}

export interface DiscoveryInput {
  /** The URL that answered (the base for relative links, and the topic when no self link). */
  url: string;
  headers: Headers;
  body: Uint8Array;
  contentType: string | null;
}

export function discoverWebSub(input: DiscoveryInput): WebSubDiscovery {
  void input;
  throw new Error("not written yet");
}
