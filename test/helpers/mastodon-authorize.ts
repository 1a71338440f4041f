// The owner on the sandbox Mastodon's authorize page, without a browser: opens the page at the
// authorize URL possekit made, presses Authorize (or Deny) in its form, and returns where the
// instance sends the browser back (the callback URL with code and state), or the code it shows for
// the out-of-band redirect.
import assert from "node:assert/strict";

function formOf(html: string, button: "Authorize" | "Deny"): URLSearchParams {
  const forms = [...html.matchAll(/<form method="post" action="\/oauth\/authorize">(.*?)<\/form>/gs)];
  const chosen = forms.find((match) => match[1]?.includes(`>${button}</button>`));
  assert.ok(chosen, `the authorize page has a ${button} button`);
  const fields = new URLSearchParams();
  for (const match of (chosen[1] ?? "").matchAll(/name="([^"]+)" value="([^"]*)"/g))
    fields.append(
      match[1] ?? "",
      (match[2] ?? "").replace(/&#(\d+);/g, (_all, code: string) => String.fromCharCode(Number(code))),
    );
  return fields;
}

/** Presses the button; returns the Location the instance redirects to. */
export async function pressOnAuthorizePage(
  authorizeUrl: string | URL,
  button: "Authorize" | "Deny" = "Authorize",
): Promise<URL> {
  const page = await fetch(authorizeUrl);
  assert.equal(page.status, 200, `the authorize page opens (${page.status})`);
  const answer = await fetch(new URL("/oauth/authorize", authorizeUrl), {
    method: "POST",
    body: formOf(await page.text(), button),
    redirect: "manual",
  });
  assert.equal(answer.status, 302, "the instance redirects back");
  return new URL(answer.headers.get("location") ?? "");
}

/** For the out-of-band redirect: the code the instance shows once Authorize is pressed. */
export async function codeShownOnAuthorize(authorizeUrl: string | URL): Promise<string> {
  const page = await fetch(authorizeUrl);
  assert.equal(page.status, 200);
  const answer = await fetch(new URL("/oauth/authorize", authorizeUrl), {
    method: "POST",
    body: formOf(await page.text(), "Authorize"),
  });
  const code = /<code id="code">([^<]+)<\/code>/.exec(await answer.text())?.[1];
  assert.ok(code, "the instance shows a code");
  return code;
}
