// Decision 0046: the preview shows a copy's text as the service does: links shortened and clickable,
// hashtags and mentions marked, the rest as typed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shownCopy, shownLink } from "./shown-copy.ts";

describe("a copy's text as the service shows it", () => {
  it("cuts links, hashtags and mentions out of the text, in order", () => {
    assert.deepEqual(shownCopy("See https://x.example/a, #herons and @bob@other.example!"), [
      { kind: "text", text: "See " },
      { kind: "link", text: "x.example/a", href: "https://x.example/a" },
      { kind: "text", text: ", " },
      { kind: "tag", text: "#herons" },
      { kind: "text", text: " and " },
      { kind: "mention", text: "@bob@other.example" },
      { kind: "text", text: "!" },
    ]);
  });

  it("shows a link without its scheme and www., cut after 30 characters", () => {
    assert.equal(shownLink("https://www.example.org/a"), "example.org/a");
    assert.equal(
      shownLink("http://example.org/0123456789012345678901234567"),
      "example.org/012345678901234567…",
    );
  });

  it("leaves a number sign, an anchor inside a link and an e-mail address as text", () => {
    assert.deepEqual(
      shownCopy("Room #1 at https://x.example/page#part, me@mail.example").map((s) => s.kind),
      ["text", "link", "text"],
    );
  });

  it("keeps non-Latin hashtags and line breaks", () => {
    assert.deepEqual(shownCopy("Füße\n#Vögel"), [
      { kind: "text", text: "Füße\n" },
      { kind: "tag", text: "#Vögel" },
    ]);
  });
});
