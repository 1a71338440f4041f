import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hubRequestForm } from "./subscriber.ts";

const request = {
  topic: "https://site.example/feed.xml",
  callback: "https://me.example/syndicate/websub/abc",
  leaseSeconds: 864_000,
  secret: "a-secret-of-ours",
};

describe("the form of a request to a WebSub hub", () => {
  it("carries the secret to an https hub", () => {
    const form = hubRequestForm({ ...request, mode: "subscribe", hub: "https://hub.example/" });
    assert.equal(form.get("hub.secret"), "a-secret-of-ours");
    assert.equal(form.get("hub.lease_seconds"), "864000");
  });

  it("never to a hub on plain http (WebSub 5.1: only over HTTPS)", () => {
    const form = hubRequestForm({ ...request, mode: "subscribe", hub: "http://hub.example/" });
    assert.equal(form.has("hub.secret"), false);
    assert.equal(form.get("hub.callback"), request.callback);
  });

  it("nor with an unsubscribe", () => {
    const form = hubRequestForm({ ...request, mode: "unsubscribe", hub: "https://hub.example/" });
    assert.deepEqual([...form.keys()], ["hub.mode", "hub.topic", "hub.callback"]);
  });
});
