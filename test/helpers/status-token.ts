// Makes an access token as the owner does: the Status page's "New token" form, sent with the
// session's cookie and CSRF token, the chosen scopes ticked. The token is on the answer, once.
import { PAGE_ACCEPT } from "../server/pages.ts";

export interface MadeOnStatus {
  response: Response;
  html: string;
  /** The token shown in the answer, or undefined when none was made. */
  token: string | undefined;
}

export const shownToken = (html: string) =>
  /<input id="access-token" type="text" readonly value="([^"]+)"/.exec(html)?.[1];

export async function makeTokenOnStatus(
  url: string,
  session: { cookie: string; csrf: string },
  options: { scope?: string[]; days?: number | string; headers?: Record<string, string> } = {},
): Promise<MadeOnStatus> {
  const form = new URLSearchParams({ _csrf: session.csrf });
  for (const scope of options.scope ?? ["create", "update"]) form.append("scope", scope);
  if (options.days !== undefined) form.set("days", String(options.days));
  else {
    // The lifetime the form has selected, as a browser sends it.
    const page = await (
      await fetch(`${url}/status`, { headers: { cookie: session.cookie, accept: PAGE_ACCEPT } })
    ).text();
    const selected = /<option value="(\d+)" selected>/.exec(page)?.[1];
    if (!selected) throw new Error("the status page selects no lifetime");
    form.set("days", selected);
  }
  const response = await fetch(`${url}/status/tokens`, {
    method: "POST",
    headers: {
      cookie: session.cookie,
      accept: PAGE_ACCEPT,
      "content-type": "application/x-www-form-urlencoded",
      origin: url,
      ...options.headers,
    },
    body: form,
    redirect: "manual",
  });
  const html = await response.text();
  return { response, html, token: shownToken(html) };
}
