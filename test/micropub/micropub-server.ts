// The real host (which always installs its Micropub endpoint) with two syndication targets, and small helpers to talk to
// it over HTTP as a Micropub client does.
import type { Server, SyndicatorPlugin } from "../../src/contract/plugin.ts";
import type { SyndicatorInfo } from "../../src/contract/syndicator.ts";
import type { Engine } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export const ME = "https://example.org/";
export const MASTODON = "https://social.example/@me";
export const BLUESKY = "https://bsky.example/profile/me";

/** A target that is only listed: these tests never syndicate. */
class ListedTarget implements SyndicatorPlugin {
  readonly id: string;
  readonly name: string;
  readonly meta = {};
  constructor(readonly info: SyndicatorInfo) {
    this.id = info.name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    this.name = info.name;
  }
  init(server: Server): void {
    server.addSyndicator(this);
  }
  async syndicate(): Promise<string> {
    throw new Error("The Micropub tests do not syndicate");
  }
}

export interface MicropubServer {
  server: TestServer;
  endpoint: string;
  /** A token with every Micropub scope. */
  token: string;
  /** POSTs form fields (a string is sent as it is, to control the exact encoding). */
  postForm(body: string | Record<string, string>, token?: string | null): Promise<Response>;
  postJson(body: unknown, token?: string | null): Promise<Response>;
  query(params: string, token?: string): Promise<Response>;
  /** Creates a post with JSON and returns its URL. */
  create(properties: Record<string, unknown[]>): Promise<string>;
  /** q=source for one post: its mf2 properties. */
  source(url: string): Promise<Record<string, unknown[]>>;
  close(): Promise<void>;
}

export async function startMicropubServer(engine: Engine): Promise<MicropubServer> {
  const server = await startTestServer({
    engine,
    config: { plugins: [], publication: { me: ME, postUrlPattern: "{me}notes/{slug}/" } },
    // The host installs its Micropub endpoint itself.
    plugins: [
      new ListedTarget({
        uid: MASTODON,
        name: "Mastodon",
        service: { name: "Mastodon", url: "https://social.example/" },
      }),
      new ListedTarget({ uid: BLUESKY, name: "Bluesky" }),
    ],
  });
  const endpoint = `${server.url}/micropub`;
  const token = await server.token("create update delete");
  const bearer = (given: string | null | undefined): Record<string, string> => {
    const value = given === undefined ? token : given;
    return value === null ? {} : { authorization: `Bearer ${value}` };
  };
  const postForm: MicropubServer["postForm"] = (body, given) =>
    fetch(endpoint, {
      method: "POST",
      headers: {
        ...bearer(given),
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: typeof body === "string" ? body : new URLSearchParams(body).toString(),
    });
  const postJson: MicropubServer["postJson"] = (body, given) =>
    fetch(endpoint, {
      method: "POST",
      headers: { ...bearer(given), "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    });
  const query: MicropubServer["query"] = (params, given) =>
    fetch(`${endpoint}?${params}`, { headers: { ...bearer(given), accept: "application/json" } });
  return {
    server,
    endpoint,
    token,
    postForm,
    postJson,
    query,
    async create(properties) {
      const response = await postJson({ type: ["h-entry"], properties });
      const location = response.headers.get("location");
      if (response.status !== 201 || !location)
        throw new Error(`create answered ${response.status}: ${await response.text()}`);
      return location;
    },
    async source(url) {
      const response = await query(`q=source&url=${encodeURIComponent(url)}`);
      if (response.status !== 200)
        throw new Error(`q=source answered ${response.status}: ${await response.text()}`);
      const body = (await response.json()) as { properties: Record<string, unknown[]> };
      return body.properties;
    },
    close: () => server.close(),
  };
}

/** Reads a Micropub error answer, asserting its shape. */
export async function errorOf(
  response: Response,
): Promise<{ status: number; error: string; description: string }> {
  const body = (await response.json()) as { error?: unknown; error_description?: unknown };
  if (typeof body.error !== "string" || typeof body.error_description !== "string")
    throw new Error(`not a Micropub error: ${JSON.stringify(body)}`);
  return { status: response.status, error: body.error, description: body.error_description };
}
