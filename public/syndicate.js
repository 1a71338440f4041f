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

// 4. Words typed into a preview are never dropped (issue 32). The row's Syndicate button sends the
//    text of the preview open in its row with the post (the server saves it when it differs, or
//    refuses to send when the service would refuse it); replacing a preview that holds unsaved words
//    with another one, or leaving the page, asks first.
const unsavedIn = (root) =>
  [...root.querySelectorAll("form[data-unsaved-guard] textarea")].filter(
    (box) => box.value !== box.defaultValue,
  );
const unsavedMessage = () =>
  document.querySelector("[data-unsaved-message]")?.getAttribute("data-unsaved-message") ?? "";
document.addEventListener("htmx:config:request", (event) => {
  const ctx = event.detail?.ctx;
  const source = ctx?.sourceElement;
  if (!ctx || !(source instanceof Element)) return;
  if (source instanceof HTMLFormElement && source.id.startsWith("syndicate-form-")) {
    const preview = source.closest(".post-row")?.querySelector(".post-preview form[data-unsaved-guard]");
    const text = preview?.querySelector("textarea[name=text]");
    const uid = preview?.querySelector("input[name=target_uid]");
    if (text && uid) {
      ctx.request.body.set("target_uid", uid.value);
      ctx.request.body.set("text", text.value);
    }
    return;
  }
  const target = ctx.target instanceof Element ? ctx.target : null;
  const replaced = target?.closest(".post-preview") ?? target?.querySelector?.(".post-preview") ?? null;
  const container = replaced ?? (target?.classList.contains("post-preview") ? target : null);
  if (!container || container.contains(source)) return;
  if (unsavedIn(container).length > 0 && !window.confirm(unsavedMessage())) event.preventDefault();
});
let submitting = false;
// A form that leaves the page (htmx did not take it) carries its words: no question then.
document.addEventListener("submit", (event) => {
  submitting = !event.defaultPrevented;
});
window.addEventListener("beforeunload", (event) => {
  if (submitting || unsavedIn(document).length === 0) return;
  event.preventDefault();
  event.returnValue = unsavedMessage();
});
