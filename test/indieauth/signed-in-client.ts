// The set-up the token endpoint's tests share: the real host, a client app on its own address and the
// owner signed in, started before a describe block's tests and closed after them. With it, what those
// tests do to a grant as its client or its owner: get tokens, refresh them, use one, and revoke one
// on the status page.
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/server.ts";
import { startedForTheBlock } from "../helpers/started-for-the-block.ts";
import { approvedTokens, type ClientApp, exchangeCode, startClientApp } from "./indieauth-client.ts";

export interface SignedInClient {
  readonly server: TestServer;
  readonly client: ClientApp;
  /** The owner's browser session: its cookie and its CSRF token. */
  readonly session: { cookie: string; csrf: string };
  /** The token endpoint's answer to a code the owner just approved for the client. */
  tokens(scope?: string): ReturnType<typeof approvedTokens>;
  /** The client refreshing (RFC 6749 §6); `extra` adds or overrides fields. */
  refresh(refreshToken: string, extra?: Record<string, string>): ReturnType<typeof exchangeCode>;
  /** Whether the host's Micropub endpoint takes this access token now. */
  works(accessToken: string): Promise<boolean>;
  /** The status page as the owner sees it. */
  statusPage(): Promise<string>;
  /** The owner's "Revoke" on the status page for the token with this id (its jti). */
  revokeOnStatus(id: string): Promise<Response>;
}

/** Call inside a describe block: its before and after hooks start and close what it answers. */
export function signedInClient(options: TestServerOptions): SignedInClient {
  const running = startedForTheBlock(
    "signedInClient",
    async () => {
      const server = await startTestServer(options);
      const client = await startClientApp();
      return { server, client, session: await server.signIn() };
    },
    async ({ server, client }) => {
      await server.close();
      await client.close();
    },
  );
  return {
    get server() {
      return running().server;
    },
    get client() {
      return running().client;
    },
    get session() {
      return running().session;
    },
    tokens: (scope) => approvedTokens(running().server.url, running().client, running().session, scope),
    refresh: (refreshToken, extra = {}) =>
      exchangeCode(`${running().server.url}/auth/token`, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: running().client.clientId,
        ...extra,
      }),
    works: async (accessToken) =>
      (
        await fetch(`${running().server.url}/micropub?q=config`, {
          headers: { authorization: `Bearer ${accessToken}` },
        })
      ).status === 200,
    statusPage: async () =>
      (
        await fetch(`${running().server.url}/status`, {
          headers: { cookie: running().session.cookie, accept: "text/html" },
        })
      ).text(),
    revokeOnStatus: (id) =>
      fetch(`${running().server.url}/status/tokens/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: running().session.cookie },
        body: new URLSearchParams({ _csrf: running().session.csrf, id }),
        redirect: "manual",
      }),
  };
}
