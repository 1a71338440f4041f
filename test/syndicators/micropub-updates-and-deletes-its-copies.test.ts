import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { callOptions, note, publication } from "./fixtures.ts";

const change = (url: string, text?: string) => ({
  ...callOptions(),
  url,
  ...(text === undefined ? {} : { text }),
});

describe("Micropub target: a copy follows its post's edits and deletion", () => {
  let endpoint: FakeMicropub;
  let syndicator: MicropubSyndicator;

  before(async () => {
    endpoint = await startFakeMicropub({ token: "their-token" });
    syndicator = new MicropubSyndicator(
      { micropubEndpoint: endpoint.url, accessToken: "their-token", name: "Other site" },
      {},
    );
  });
  beforeEach(() => endpoint.setFailure(null));
  after(() => endpoint.close());

  it("update replaces exactly the properties a create sends now: the copy then holds what a new copy would", async () => {
    const url = await syndicator.syndicate(
      note({ name: "First title", category: ["a"], photo: [{ url: "/media/a.jpg", alt: "Old alt" }] }),
      publication,
      callOptions(),
    );
    const edited = note({
      name: "Better title",
      content: { text: "Fixed the typo", html: "" },
      category: ["a", "b"],
      photo: [{ url: "/media/a.jpg", alt: "A bicycle" }, { url: "/media/b.jpg" }],
    });
    await syndicator.update(edited, publication, change(url));

    const sent = endpoint.requests.at(-1)?.json as unknown as Record<string, unknown>;
    await syndicator.syndicate(edited, publication, callOptions());
    const fresh = endpoint.requests.at(-1)?.json?.properties;
    assert.deepEqual(sent, { action: "update", url, replace: fresh }, "replace is what a create sends");
    assert.equal(endpoint.requests.at(-2)?.contentType, "application/json");
    assert.deepEqual(endpoint.stored.get(url), fresh);
    assert.deepEqual(syndicator.preview(edited, publication).text, "Fixed the typo");
  });

  it("update sends the user's own words for this target as the content, as the preview shows them", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    await syndicator.update(note(), publication, change(url, "My own words"));
    assert.deepEqual(endpoint.stored.get(url)?.content, ["My own words"]);
    assert.equal(syndicator.preview(note(), publication, { text: "My own words" }).text, "My own words");
  });

  it("update of a copy the endpoint does not know: a permanent refusal with its words", async () => {
    await assert.rejects(
      syndicator.update(note(), publication, change(`${endpoint.url.replace("/micropub", "")}/notes/999`)),
      (error: unknown) =>
        error instanceof SyndicationError &&
        error.permanent &&
        error.status === 400 &&
        /does not exist/.test(error.message),
    );
  });

  it("delete sends action=delete with the copy's URL, and the copy is gone", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    await syndicator.delete(note(), publication, change(url));
    assert.deepEqual(endpoint.requests.at(-1)?.form, { action: ["delete"], url: [url] });
    assert.equal(endpoint.stored.has(url), false);
  });

  it("delete of a copy the endpoint answers 404 or 410 for counts as deleted", async () => {
    for (const status of [404, 410]) {
      endpoint.setFailure({ status, error: "not_found", description: "No such post" });
      await syndicator.delete(note(), publication, change(`${endpoint.url}/gone-${status}`));
    }
  });

  it("delete answered 400 invalid_request is not taken for deleted: the copy may still be there", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    await syndicator.delete(note(), publication, change(url));
    await assert.rejects(
      syndicator.delete(note(), publication, change(url)),
      (error: unknown) =>
        error instanceof SyndicationError && error.permanent && /does not exist/.test(error.message),
    );
  });

  it("a 503 on update or delete is a temporary failure, retried later", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    endpoint.setFailure({ status: 503, error: "temporarily_unavailable", description: "Down for a bit" });
    for (const attempt of [
      syndicator.update(note(), publication, change(url)),
      syndicator.delete(note(), publication, change(url)),
    ]) {
      await assert.rejects(
        attempt,
        (error: unknown) => error instanceof SyndicationError && !error.permanent && error.status === 503,
      );
    }
    endpoint.setFailure(null);
    assert.equal(endpoint.stored.has(url), true);
  });
});
