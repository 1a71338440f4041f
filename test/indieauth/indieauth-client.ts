// A Micropub client as IndieAuth sees one: an app on its own address (a loopback client_id, as in
// development) with a page describing itself (h-app) and a callback that records what it was sent.
// Helpers speak the protocol as a client does: PKCE, the authorization URL, the code exchange.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ClientApp {
  url: string;
  clientId: string;
  redirectUri: string;
  /** Query parameters of every request to the callback, in order. */
  callbacks: URLSearchParams[];
  /** Every path requested (the server fetching the client's metadata shows here). */
  requests: string[];
  /** What "/" answers: an h-app page by default. */
  setPage(page: { type: string; body: string; headers?: Record<string, string> } | "hang"): void;
  close(): Promise<void>;
}

export async function startClientApp(name = "Quill Test"): Promise<ClientApp> {
  const callbacks: URLSearchParams[] = [];
  const requests: string[] = [];
  let page: { type: string; body: string; headers?: Record<string, string> } | "hang" | null = null;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://client.invalid");
    requests.push(url.pathname);
    if (url.pathname === "/callback") {
      callbacks.push(url.searchParams);
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>Back</title><p>Signed in");
      return;
    }
    // A client whose page never answers: the server must give up on it, not on the owner.
    if (page === "hang") return;
    const current = page ?? {
      type: "text/html",
      body: `<!doctype html><title>${name}</title><div class="h-app"><img class="u-logo" src="https://client.example/logo.png" alt=""><a class="u-url p-name" href="/">${name}</a></div>`,
    };
    res.writeHead(200, { "content-type": current.type, ...current.headers }).end(current.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const closeHanging = () => server.closeAllConnections();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clientId: `${url}/`,
    redirectUri: `${url}/callback`,
    callbacks,
    requests,
    setPage(next) {
      page = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        closeHanging();
      }),
  };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizationUrl(
  endpoint: string,
  client: { clientId: string; redirectUri: string },
  options: {
    challenge: string;
    state?: string;
    scope?: string;
    method?: string;
    extra?: Record<string, string>;
  },
): string {
  const url = new URL(endpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    state: options.state ?? randomBytes(8).toString("hex"),
    code_challenge: options.challenge,
    code_challenge_method: options.method ?? "S256",
    scope: options.scope ?? "create update",
    ...options.extra,
  }).toString();
  return url.href;
}

/**
 * Plays the signed-in owner over plain HTTP: opens the consent page with the session cookie and
 * sends its form back (approving with the ticked scopes, or denying). Answers the Location the
 * server redirected to.
 */
export async function consentOverHttp(
  authUrl: string,
  session: { cookie: string },
  answer: { decision: "approve" | "deny"; scopes?: string[] },
): Promise<URL> {
  const page = await fetch(authUrl, {
    headers: { cookie: session.cookie, accept: "text/html" },
    redirect: "manual",
  });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${html.slice(0, 300)}`);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
  const body = new URLSearchParams({
    _csrf: field("_csrf"),
    ticket: field("ticket"),
    decision: answer.decision,
  });
  const offered = [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1] as string);
  for (const scope of answer.scopes ?? offered) body.append("scope", scope);
  const response = await fetch(new URL("/auth/consent", authUrl), {
    method: "POST",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body,
    redirect: "manual",
  });
  const location = response.headers.get("location");
  if (response.status !== 303 || !location)
    throw new Error(`consent answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  return new URL(location);
}

export async function exchangeCode(
  tokenEndpoint: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A code the owner approved over HTTP (consentOverHttp), with the PKCE pair it was asked with. */
export async function approvedCode(
  serverUrl: string,
  client: { clientId: string; redirectUri: string },
  session: { cookie: string },
  scope = "create update",
): Promise<{ code: string; verifier: string }> {
  const pkce = pkcePair();
  const back = await consentOverHttp(
    authorizationUrl(`${serverUrl}/auth`, client, { challenge: pkce.challenge, scope }),
    session,
    { decision: "approve" },
  );
  return { code: back.searchParams.get("code") ?? "", verifier: pkce.verifier };
}

/** The token endpoint's answer to a freshly approved code. */
export async function approvedTokens(
  serverUrl: string,
  client: { clientId: string; redirectUri: string },
  session: { cookie: string },
  scope = "create update",
): Promise<{ access_token: string; refresh_token: string; scope: string }> {
  const { code, verifier } = await approvedCode(serverUrl, client, session, scope);
  const { body } = await exchangeCode(`${serverUrl}/auth/token`, {
    grant_type: "authorization_code",
    code,
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
  });
  return body as { access_token: string; refresh_token: string; scope: string };
}
