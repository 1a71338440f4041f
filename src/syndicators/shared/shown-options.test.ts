import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shownOptions } from "./shown-options.ts";

describe("a syndicator's shown options", () => {
  const compiled = () => "rendered";

  it("leave out every secret and show the template as written, not compiled", () => {
    const parsed = {
      url: "https://social.example",
      accessToken: "t0ken",
      clientSecret: "s3cret",
      template: compiled,
    };
    const shown = shownOptions(parsed, { template: "{{ name }}" }, ["accessToken", "clientSecret"]);
    assert.deepEqual(shown, { url: "https://social.example", template: "{{ name }}" });
    assert.ok(!JSON.stringify(shown).includes("t0ken") && !JSON.stringify(shown).includes("s3cret"));
  });

  it("name no template when none is set", () => {
    const noTemplate: { user: string; accessToken: string; template?: () => string } = {
      user: "alice",
      accessToken: "t",
    };
    assert.deepEqual(shownOptions(noTemplate, { template: "x" }, ["accessToken"]), { user: "alice" });
  });
});
