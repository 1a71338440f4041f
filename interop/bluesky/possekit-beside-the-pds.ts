// `possekit serve` as the interop tests run it beside the real PDS: its own process, the site being
// the photo server (publication.me, which the tokens name: the child's own token helper assumes
// another site), fetching from 127.0.0.1 allowed (the PDS, the photos and the post pages listen
// there), and a token to write posts and send them with.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { TokenIssuer } from "../../src/server/auth/tokens.ts";
import type { PostResult } from "../../src/syndication/types.ts";
import type { PhotoServer } from "../../test/fakes/photo-server.ts";
import { type ChildServer, startChildServer } from "../../test/helpers/child-server.ts";

/** Which possekit a request goes to, with a token it accepts. */
export interface Instance {
  url: string;
  token: string;
}

export interface Possekit extends Instance {
  server: ChildServer;
}

/** Starts possekit with `config` (its plug-ins and theirs options) and `env` over the defaults. */
export async function startPossekit(
  photos: PhotoServer,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Possekit> {
  const secret = randomBytes(24).toString("base64url");
  const server = await startChildServer({
    secret,
    config: { ...config, fetch: { allowPrivate: true }, publication: { me: photos.url } },
    env,
    // The PDS's first answers and a cold TypeScript compile share the machine.
    startTimeoutMs: 180_000,
  });
  const token = await new TokenIssuer(secret, `${photos.url}/`).issue({
    scope: ["create", "update", "delete"],
    clientId: "interop",
    lifetimeDays: 1,
  });
  return { server, url: server.url, token };
}

/** Creates a post through Micropub (JSON) naming `target`; its URL. */
export async function createPostAt(
  on: Instance,
  properties: Record<string, unknown>,
  target: string,
): Promise<string> {
  const response = await fetch(`${on.url}/micropub`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${on.token}`,
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify({ type: ["h-entry"], properties: { ...properties, "mp-syndicate-to": [target] } }),
  });
  assert.equal(response.status, 201, await response.text());
  const location = response.headers.get("location");
  assert.ok(location);
  return location;
}

/** POST /syndicate{path}: the run's JSON answer (a 200 expected). */
export async function syndicateAt(
  on: Instance,
  path: string,
): Promise<PostResult & { results?: PostResult[] }> {
  const response = await fetch(`${on.url}/syndicate${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${on.token}`, accept: "application/json" },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as PostResult;
}
