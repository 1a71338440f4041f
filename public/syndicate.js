// The Syndicate page's glue, beside htmx and its hx-sse extension.
//
// 1. A button a live update made unavailable is aria-disabled rather than disabled, so that it keeps
//    the keyboard focus it may have; its form's requests are held back here.
document.addEventListener("htmx:config:request", (event) => {
  const source = event.detail?.ctx?.sourceElement;
  if (source instanceof HTMLFormElement && source.querySelector('[type="submit"][aria-disabled="true"]')) {
    event.preventDefault();
  }
});

// 2. When an update removes the focused element (a confirmed target's form), the focus goes to the
//    region it was in (marked data-focus-home), not to the top of the page.
let focusHome = null;
document.addEventListener("htmx:before:request", () => {
  const active = document.activeElement;
  focusHome = active && active !== document.body ? (active.closest("[data-focus-home]")?.id ?? null) : null;
});
document.addEventListener("htmx:after:swap", () => {
  if (document.activeElement && document.activeElement !== document.body) return;
  const home = focusHome ? document.getElementById(focusHome) : null;
  if (home) home.focus();
});

// 3. htmx swaps every response, but the host answers errors (and a session that has ended) with
//    whole pages: a request that gets one shows the page's message in the nearest aria-live region
//    instead, the status poll skips it, and a redirect to the sign-in page reloads the page so that
//    the browser signs in properly.
document.addEventListener("htmx:after:request", (event) => {
  const ctx = event.detail?.ctx;
  if (!ctx || typeof ctx.text !== "string" || !/^\s*<!doctype html/i.test(ctx.text)) return;
  if (ctx.response?.raw?.redirected) {
    ctx.swap = "none";
    window.location.reload();
    return;
  }
  if (ctx.sourceElement?.id === "run-status") {
    ctx.swap = "none";
    return;
  }
  const announcer = document.getElementById("run-announcer") ?? document.getElementById("post-announcer");
  if (!announcer) {
    ctx.swap = "none";
    return;
  }
  ctx.target = announcer;
  ctx.swap = "innerHTML";
  ctx.select = "[role=alert] p:not(:last-child)";
});
