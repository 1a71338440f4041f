// The edit form's rows for new photos (decision 0060). Without JavaScript the page shows a few rows,
// each a file and its alt text; with it, one row shows and "Add another photo" adds the next, up to
// the room the post has left (data-room: every row's file input is sent, even empty, and a request
// brings at most so many files). Rows holding typed alt text (a form shown again) are kept.
const rows = document.querySelector("[data-new-photos]");
const adder = document.getElementById("add-photo-row");
if (rows instanceof HTMLElement && adder instanceof HTMLButtonElement) {
  const room = Number(rows.dataset.room) || 0;
  const all = () => [...rows.querySelectorAll("fieldset.new-photo")];
  const blank = (row) =>
    [...row.querySelectorAll("textarea, input[type=file]")].every((field) => field.value === "");
  for (const row of all().slice(1).reverse()) if (blank(row) && all().at(-1) === row) row.remove();
  const template = all()[0]?.cloneNode(true);
  const refresh = () => {
    adder.hidden = !template || all().length >= room;
  };
  adder.addEventListener("click", () => {
    if (!(template instanceof HTMLElement) || all().length >= room) return;
    const number = all().length + 1;
    const row = template.cloneNode(true);
    const legend = row.querySelector("legend");
    if (legend) legend.textContent = (rows.dataset.legend ?? "").replace("#", String(number));
    for (const field of row.querySelectorAll("input[type=file], textarea")) {
      const id = field.id.replace(/-new-\d+-/, `-new-${number}-`);
      row.querySelector(`label[for="${field.id}"]`)?.setAttribute("for", id);
      field.id = id;
      field.value = "";
    }
    rows.append(row);
    refresh();
    row.querySelector("input[type=file]")?.focus();
  });
  refresh();
}
