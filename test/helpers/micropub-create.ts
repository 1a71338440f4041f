// Creates a post as most Micropub clients do (form-encoded, with a Bearer token) and answers its URL.
export interface NewPost {
  content: string;
  /** Target uids for mp-syndicate-to[]. */
  targets: string[];
  /** ISO 8601; the server's clock when absent. */
  published?: string;
  /** Other form fields, e.g. { "post-status": "draft" }. */
  fields?: Record<string, string>;
}

export async function createPostAt(serverUrl: string, token: string, post: NewPost): Promise<string> {
  const form = new URLSearchParams({ h: "entry", content: post.content, ...post.fields });
  for (const uid of post.targets) form.append("mp-syndicate-to[]", uid);
  if (post.published) form.set("published", post.published);
  const response = await fetch(`${serverUrl}/micropub`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: form,
  });
  const location = response.headers.get("location");
  if (response.status !== 201 || !location)
    throw new Error(`Micropub create answered ${response.status}: ${await response.text()}`);
  return location;
}

/** POSTs a Micropub JSON request with a Bearer token: `body` as it is when a string, else as JSON. */
export function postMicropubJson(serverUrl: string, token: string, body: unknown): Promise<Response> {
  return fetch(`${serverUrl}/micropub`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json",
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
