// Signs in to a running server as its owner, as a browser does: the password form, then the CSRF
// token from a page, for the cookie-authenticated POSTs that follow.
export async function signInAt(url: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${url}/session/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ password }),
    redirect: "manual",
  });
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("possekit_session="));
  if (!setCookie) throw new Error(`sign-in failed with ${response.status}`);
  const cookie = setCookie.split(";")[0] as string;
  const page = await fetch(`${url}/status`, { headers: { cookie, accept: "text/html" } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error("no CSRF token on the status page");
  return { cookie, csrf };
}
