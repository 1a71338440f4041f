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
