// GET /health as the owner's tools read it: with an access token, which gets the plug-ins' reports
// (the scheduler, the feeds, the sources). A stranger gets only the overall state.

/** A running server that issues access tokens it accepts (TestServer, ChildServer). */
export interface TokenServer {
  url: string;
  token(scope?: string): Promise<string>;
}

/** The whole /health answer, read with a token of the server's. */
export async function healthOf<T = Record<string, unknown>>(server: TokenServer): Promise<T> {
  const authorization = `Bearer ${await server.token("create")}`;
  const response = await fetch(`${server.url}/health`, { headers: { authorization } });
  return (await response.json()) as T;
}
