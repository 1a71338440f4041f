// The owner's POST of a form on the Accounts page, as a browser sends it: the session's cookie and
// CSRF token, a urlencoded body, and the answer's redirect not followed (the test reads the 303).

export interface OwnerSession {
  cookie: string;
  csrf: string;
}

/**
 * POSTs `fields` to `{serverUrl}/syndicate/accounts/{path}` (`mastodon`, `bluesky`, `micropub`,
 * `<id>/disconnect`…) as the signed-in owner.
 *
 * @example
 * const answer = await postAccountsForm(server.url, await server.signIn(), "mastodon", {
 *   instance: sandbox.url,
 *   accessToken: sandbox.accessToken,
 * });
 * assert.equal(answer.status, 303);
 */
export function postAccountsForm(
  serverUrl: string,
  session: OwnerSession,
  path: string,
  fields: Record<string, string>,
  accept = "text/html",
): Promise<Response> {
  return fetch(`${serverUrl}/syndicate/accounts/${path}`, {
    method: "POST",
    headers: { cookie: session.cookie, accept, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: session.csrf, ...fields }),
    redirect: "manual",
  });
}

/** How many times a connect form is posted while the service it names did not answer in time. */
const CONNECT_ATTEMPTS = 3;

/**
 * postAccountsForm for a connect form, posted again while the answer is the refusal saying the
 * service "could not be reached". The connector gives the service 15 s, on the real clock
 * (src/syndicators/shared/account-fetch.ts); on a loaded machine the sandbox in the test's own
 * process answered later than that (a connect answering 400 after 186 s in CI; a sandbox made
 * 16 s slow gives that very 400). Such a refusal saves nothing, so asking again changes only the
 * timing; any other answer is returned at once, and a service that is never reached still fails.
 */
export async function postConnectForm(
  serverUrl: string,
  session: OwnerSession,
  path: string,
  fields: Record<string, string>,
  accept = "text/html",
): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await postAccountsForm(serverUrl, session, path, fields, accept);
    if (answer.status !== 400 || attempt === CONNECT_ATTEMPTS) return answer;
    if (!/could not be reached/.test(await answer.clone().text())) return answer;
    await answer.body?.cancel();
  }
}
