// Decision 0017: an EventSource ends a line at CR, LF or CRLF. A target that answers with an
// error containing bare CRs must not be able to end the row's
// message early and add an event of its own to the Syndicate page's stream. Reproduced over HTTP: a
// fake Micropub target refuses with such an error, and the page's stream is read as a browser would.
import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import express from "express";
import { startEventStream } from "../../src/plugin/responses/streams.ts";
import { MicropubSyndicator } from "../../src/syndicators/micropub/index.ts";
import { type FakeMicropub, startFakeMicropub } from "../fakes/micropub-endpoint.ts";
import { engines } from "../helpers/databases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { PLUGIN_PACKAGE } from "./endpoint-server.ts";

interface ServerSentEvent {
  event: string;
  data: string;
}

/** The EventSource algorithm (HTML standard): lines end at CRLF, CR or LF; a blank line dispatches. */
function parseEvents(text: string): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  let event = "message";
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) events.push({ event, data: data.join("\n") });
      event = "message";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return events;
}

const INJECTION = "\r\revent: injected\rdata: <p id=injected>owned</p>\r\r";

for (const engine of engines) {
  describe(`a bare CR cannot add an event to the Syndicate page's stream (${engine.name})`, () => {
    let target: FakeMicropub;
    let home: TestServer;
    let token: string;
    let uid: string;
    before(async () => {
      target = await startFakeMicropub({ token: "their-token" });
      const syndicator = new MicropubSyndicator(
        { micropubEndpoint: target.url, accessToken: "their-token", name: "Other site" },
        {},
      );
      uid = syndicator.info.uid;
      home = await startTestServer({ engine, config: { plugins: [PLUGIN_PACKAGE] }, plugins: [syndicator] });
      token = await home.token("create update");
    });
    after(async () => {
      await home?.close();
      await target?.close();
    });

    const createPost = async (properties: Record<string, unknown[]>) => {
      const created = await fetch(`${home.url}/micropub`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({ type: ["h-entry"], properties: { ...properties, "mp-syndicate-to": [uid] } }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const url = created.headers.get("location");
      assert.ok(url);
      return url;
    };

    /** What the page's button asks for: the htmx stream of rows for one post. */
    const pageStream = async (post: string) => {
      const answer = await fetch(`${home.url}/syndicate?source_url=${encodeURIComponent(post)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", "hx-request": "true" },
      });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get("content-type") ?? "", /^text\/event-stream/);
      return parseEvents(await answer.text());
    };

    const assertNoInjectedEvent = (events: ServerSentEvent[]) => {
      assert.ok(events.length > 0, "the stream carried messages");
      assert.deepEqual(
        events.filter((e) => e.event !== "message").map((e) => e.event),
        [],
        "only unnamed messages (htmx swaps those)",
      );
      for (const e of events) {
        assert.doesNotMatch(e.data, /^<p id=injected>/, "no message is the target's own HTML");
      }
    };

    it("a target's error with bare CRs is stored without them and stays inside its row", async () => {
      target.setFailure({ status: 400, error: "invalid_request", description: `boom${INJECTION}end` });
      const post = await createPost({ content: ["A note"] });
      const received = await pageStream(post);
      assertNoInjectedEvent(received);
      const row = received.find((e) => e.data.includes("boom"));
      assert.ok(row, "the row with the error was sent");
      // The row is rendered from the ledger: each run of control characters was stored as one space.
      assert.match(row.data, /boom event: injected data: &lt;p id=injected&gt;owned&lt;\/p&gt; end/);
    });
  });
}

// The stream itself, whatever text a future view puts in a message: the rows above reach it only
// after the ledger has removed control characters, so here it is given such text directly.
describe("an event's data with CR, LF and CRLF line ends stays one event", () => {
  it("sends every line of the data as a data line of the same event", async () => {
    const app = express();
    app.get("/events", (_req, res) => {
      const stream = startEventStream(res);
      stream.send(null, `one${INJECTION}two\r\nthree\nfour`);
      stream.send("result", "last");
      stream.close();
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const events = parseEvents(await (await fetch(`http://127.0.0.1:${port}/events`)).text());
      assert.deepEqual(events, [
        {
          event: "message",
          data: "one\n\nevent: injected\ndata: <p id=injected>owned</p>\n\ntwo\nthree\nfour",
        },
        { event: "result", data: "last" },
      ]);
    } finally {
      server.close();
    }
  });
});
