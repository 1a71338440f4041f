import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OptionsError } from "../../contract/options/options-error.ts";
import { MicropubEndpoint } from "./micropub-endpoint.ts";

const PACKAGE = "@possekit/endpoint-micropub";

function refusal(options: Record<string, unknown>): string[] {
  try {
    new MicropubEndpoint(options);
  } catch (error) {
    assert.ok(error instanceof OptionsError, `an OptionsError, not ${String(error)}`);
    return error.linesFor(PACKAGE);
  }
  return assert.fail("the options were taken");
}

describe("the Micropub endpoint's options", () => {
  it("mount at /micropub by default, or where mountPath says", () => {
    assert.equal(new MicropubEndpoint().mountPath, "/micropub");
    assert.equal(new MicropubEndpoint({ mountPath: "/mp" }).mountPath, "/mp");
  });

  it("refuse a mountPath that is not a path in one line naming the option", () => {
    assert.deepEqual(refusal({ mountPath: "micropub" }), [
      `${PACKAGE}.mountPath: must be a path such as "/micropub"`,
    ]);
  });

  it("refuse a misspelt option, naming the one meant", () => {
    const [line, ...rest] = refusal({ mountpath: "/mp" });
    assert.deepEqual(rest, []);
    assert.match(line ?? "", /mountpath/);
    assert.match(line ?? "", /did you mean "?mountPath"?/i);
  });
});
