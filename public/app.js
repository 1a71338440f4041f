// The little client glue the pages need: CSRF header on htmx requests, and copy buttons.
document.addEventListener("htmx:config:request", (event) => {
  const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content");
  if (token && event.detail?.ctx?.request?.headers) event.detail.ctx.request.headers["X-CSRF-Token"] = token;
});
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.querySelector(button.getAttribute("data-copy"));
  if (!source) return;
  source.select();
  try {
    await navigator.clipboard.writeText(source.value);
  } catch {
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = button.getAttribute("data-copied") || label;
  setTimeout(() => {
    button.textContent = label;
  }, 2000);
});
