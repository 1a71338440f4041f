// A post as a remote Micropub server's q=source answers it (mf2 JSON), read into the JF2 the host
// keeps. The answer is another server's, not ours: every item is checked for its shape, and one
// that is not a post with a URL is skipped rather than trusted.
//
//   possekit:  {"type": ["h-entry"], "properties": {"url": ["…"], "mp-syndicate-to": ["…"], …}}
//   Indiekit:  the same, plus "uid": [its database id]; a deleted post keeps url, published and
//              type and gains "deleted": [date] (possekit leaves deleted posts out of the list).
import { z } from "zod";
import { jf2Type, mf2PropertiesToJf2 } from "../../contract/mf2-jf2.ts";

export interface RemotePost {
  /** The post's URL on the remote site: what identifies it there and here. */
  url: string;
  /** JF2 properties (type, url, published, content, mp-syndicate-to, syndication, …). */
  properties: Record<string, unknown>;
  /** The remote server says the post is deleted (Indiekit's `deleted` property). */
  deleted: boolean;
}

const mf2Item = z.object({
  type: z.array(z.string()).optional(),
  properties: z.record(z.string(), z.array(z.unknown())),
});

const httpUrl = z.url({ protocol: /^https?$/, error: "not an http(s) URL" });

/** Parses JSON without ever letting a key named __proto__ reach an object (it is dropped). */
export function parseUntrustedJson(text: string): unknown {
  return JSON.parse(text, (key, value) => (key === "__proto__" ? undefined : value));
}

/** One mf2 item as a RemotePost, or undefined when it is not a post with an http(s) URL. */
export function remotePostOf(item: unknown): RemotePost | undefined {
  const parsed = mf2Item.safeParse(item);
  if (!parsed.success) return undefined;
  const url = httpUrl.safeParse(parsed.data.properties.url?.[0]);
  if (!url.success) return undefined;
  let properties: Record<string, unknown>;
  try {
    properties = { type: jf2Type(parsed.data.type ?? []), ...mf2PropertiesToJf2(parsed.data.properties) };
  } catch {
    // Nested deeper than the stack allows: not a post anyone wrote.
    return undefined;
  }
  properties.url = url.data;
  return { url: url.data, properties, deleted: parsed.data.properties.deleted !== undefined };
}
