// The Syndicate page's one piece of glue. htmx swaps every response, but the host answers errors
// (and a session that has ended) with whole pages: a fragment request that gets one shows the
// page's message in the nearest aria-live region instead, the status poll simply skips it, and a
// redirect to the sign-in page reloads the page so that the browser signs in properly.
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
