// The Nostr target against a real relay (@nostr-relay/core, dev/sandbox/nostr-relay.ts) on
// 127.0.0.1: notes and articles arrive signed and verifiable; a crash between signing and sending
// leaves exactly one event id on the relay (the retry sends the saved event, never a re-signed
// one); deletions arrive as NIP-09 requests; an article edit replaces the article; a note edit is
// kept; a refusing relay (`OK false`) is reported with its reason; a relay on a private address is
// not contacted unless the host allows it.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { NostrEvent } from "nostr-tools/core";
import * as nip19 from "nostr-tools/nip19";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { type SandboxRelay, startNostrRelay } from "../../dev/sandbox/nostr-relay.ts";
import type { Server } from "../../src/contract/plugin.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { NostrSyndicator } from "../../src/syndicators/nostr/index.ts";
import { callOptions, hostAllowingPrivate, note, publication } from "./fixtures.ts";

function eventOf(relay: SandboxRelay, id: string): NostrEvent {
  const event = relay.events().find((candidate) => candidate.id === id);
  assert.ok(event, `the relay has no event ${id}`);
  return event as NostrEvent;
}

describe("Nostr: a real relay", () => {
  let relay: SandboxRelay;
  let second: SandboxRelay;
  const secretKey = generateSecretKey();
  const publicKey = getPublicKey(secretKey);
  const nsec = nip19.nsecEncode(secretKey);
  let clock = new Date("2026-01-02T03:04:05Z");
  const now = () => clock;

  const target = (relays: string[] = [relay.url], host: Server | null = hostAllowingPrivate) => {
    const syndicator = new NostrSyndicator({ secretKey: nsec, relays }, {}, now);
    if (host) syndicator.init(host);
    return syndicator;
  };

  before(async () => {
    relay = await startNostrRelay();
    second = await startNostrRelay();
  });
  beforeEach(() => {
    relay.refuse(null);
    second.refuse(null);
    clock = new Date(clock.getTime() + 60_000);
  });
  after(async () => {
    await relay.close();
    await second.close();
  });

  it("publishes a note (kind 1) signed with the key, photos as URLs with imeta, and links to its nevent", async () => {
    const url = await target().syndicate(
      note({
        category: ["IndieWeb"],
        photo: [{ url: "https://example.org/media/bike.jpg", alt: "A red bicycle" }],
      }),
      publication,
      callOptions(),
    );
    assert.match(url, /^https:\/\/njump\.me\/nevent1/);
    const pointer = nip19.decode(url.slice("https://njump.me/".length));
    assert.equal(pointer.type, "nevent");
    const event = eventOf(relay, pointer.type === "nevent" ? pointer.data.id : "");
    assert.ok(verifyEvent({ ...event }), "the relay's copy verifies");
    assert.equal(event.pubkey, publicKey);
    assert.equal(event.kind, 1);
    assert.equal(
      event.content,
      "Hello from my site, see https://example.com/page for more\n\n#IndieWeb\nhttps://example.org/media/bike.jpg",
    );
    assert.deepEqual(event.tags, [
      ["r", "https://example.org/notes/hello/"],
      ["t", "indieweb"],
      ["imeta", "url https://example.org/media/bike.jpg", "m image/jpeg", "alt A red bicycle"],
    ]);
    assert.equal(event.created_at, Math.floor(clock.getTime() / 1000));
  });

  it("publishes a titled post as an article (kind 30023, d = the post's URL) linked by its naddr", async () => {
    const url = await target().syndicate(
      note({ name: "A long read", summary: "What it is about", content: "The whole text." }),
      publication,
      callOptions(),
    );
    const pointer = nip19.decode(url.slice("https://njump.me/".length));
    assert.equal(pointer.type, "naddr");
    assert.deepEqual(pointer.type === "naddr" ? [pointer.data.kind, pointer.data.identifier] : [], [
      30023,
      "https://example.org/notes/hello/",
    ]);
    const [event] = relay.events().filter((candidate) => candidate.kind === 30023);
    assert.ok(event && verifyEvent({ ...event }));
    assert.equal(event.content, "The whole text.\n\nhttps://example.org/notes/hello/");
    assert.deepEqual(event.tags.slice(0, 4), [
      ["d", "https://example.org/notes/hello/"],
      ["title", "A long read"],
      ["summary", "What it is about"],
      ["published_at", String(Date.parse("2024-05-01T10:00:00.000Z") / 1000)],
    ]);
  });

  it("a crash between signing and sending: the retry sends the saved event, so one id reaches the relay", async () => {
    const post = note({ content: { text: "Crash test", html: "" } });
    let saved: string | undefined;
    const crash = new Error("the process died after saving the event");
    await assert.rejects(
      target().syndicate(post, publication, {
        ...callOptions("key-crash"),
        checkpoint: async (value) => {
          saved = value;
          throw crash;
        },
      }),
      (error) => error === crash,
    );
    assert.ok(saved, "the signed event was saved before sending");
    const signed = (JSON.parse(saved) as { event: NostrEvent }).event;
    assert.ok(verifyEvent({ ...signed }));
    assert.ok(!relay.received.includes(signed.id), "nothing was sent before the event was saved");

    // Later, after a restart: a new syndicator, a clock that has moved on.
    clock = new Date(clock.getTime() + 3_600_000);
    const first = await target().syndicate(post, publication, {
      ...callOptions("key-crash"),
      resumeFrom: saved,
    });
    // The answer was lost: the core tries once more with the same saved event.
    const again = await target().syndicate(post, publication, {
      ...callOptions("key-crash"),
      resumeFrom: saved,
    });
    assert.equal(again, first);
    const copies = relay.events().filter((event) => event.content === "Crash test");
    assert.deepEqual(
      copies.map((event) => event.id),
      [signed.id],
    );
    assert.equal(relay.received.filter((id) => id === signed.id).length, 2, "both attempts sent that event");
  });

  it("sends a deletion request (NIP-09, kind 5) for a note, and the relay stops serving the note", async () => {
    const syndicator = target();
    const post = note({ content: { text: "To be deleted", html: "" } });
    const url = await syndicator.syndicate(post, publication, callOptions());
    const pointer = nip19.decode(url.slice("https://njump.me/".length));
    const id = pointer.type === "nevent" ? pointer.data.id : "";
    await syndicator.delete(post, publication, { url, ...callOptions() });
    const request = relay
      .events()
      .find((event) => event.kind === 5 && event.tags.some((tag) => tag[1] === id));
    assert.ok(request && verifyEvent({ ...request }), "the deletion request arrived signed");
    assert.deepEqual(request.tags, [
      ["e", id],
      ["k", "1"],
    ]);
    assert.equal(request.pubkey, publicKey);
    assert.ok(!relay.events().some((event) => event.id === id), "the note is no longer served");
  });

  it("deletes an article by its address (an `a` tag)", async () => {
    const syndicator = target();
    const post = note({ name: "Gone soon", url: "https://example.org/articles/gone/" });
    const url = await syndicator.syndicate(post, publication, callOptions());
    await syndicator.delete(post, publication, { url, ...callOptions() });
    const address = `30023:${publicKey}:https://example.org/articles/gone/`;
    assert.ok(relay.events().some((event) => event.kind === 5 && event.tags[0]?.[1] === address));
    assert.ok(
      !relay
        .events()
        .some(
          (event) => event.kind === 30023 && event.tags[0]?.[1] === address.split(":").slice(2).join(":"),
        ),
    );
  });

  it("an article edit republishes the addressable event, which replaces the first; a note edit is kept", async () => {
    const syndicator = target();
    const articleUrl = "https://example.org/articles/edited/";
    const post = note({ name: "Edited", url: articleUrl, content: "First version" });
    const url = await syndicator.syndicate(post, publication, callOptions());
    clock = new Date(clock.getTime() + 10_000);
    await syndicator.update(
      note({ name: "Edited", url: articleUrl, content: "Second version" }),
      publication,
      {
        url,
        ...callOptions(),
      },
    );
    const versions = relay
      .events()
      .filter(
        (event) => event.kind === 30023 && event.tags.some((tag) => tag[0] === "d" && tag[1] === articleUrl),
      );
    assert.deepEqual(
      versions.map((event) => event.content.split("\n")[0]),
      ["Second version"],
    );

    const notePost = note({ content: { text: "A note stays as sent", html: "" } });
    const noteUrl = await syndicator.syndicate(notePost, publication, callOptions());
    const before = relay.received.length;
    await syndicator.update(note({ content: { text: "Changed", html: "" } }), publication, {
      url: noteUrl,
      ...callOptions(),
    });
    assert.equal(relay.received.length, before, "nothing was sent for a note edit");
  });

  it("reports a relay's refusal (OK false) with its reason; lasting refusals are permanent", async () => {
    relay.refuse("blocked: this relay takes no copies");
    const failure = await target()
      .syndicate(note(), publication, callOptions())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(failure instanceof SyndicationError);
    assert.match(
      failure.message,
      /no relay took the event: ws:\/\/127\.0\.0\.1:\d+: blocked: this relay takes no copies/,
    );
    assert.equal(failure.permanent, true);

    relay.refuse("rate-limited: slow down");
    await assert.rejects(
      target().syndicate(note(), publication, callOptions()),
      (error: SyndicationError) => error.permanent === false && /rate-limited: slow down/.test(error.message),
    );
  });

  it("counts a copy sent when one relay takes it while another refuses", async () => {
    relay.refuse("restricted: members only");
    const url = await target([relay.url, second.url]).syndicate(
      note({ content: { text: "One of two", html: "" } }),
      publication,
      callOptions(),
    );
    const pointer = nip19.decode(url.slice("https://njump.me/".length));
    assert.deepEqual(pointer.type === "nevent" ? pointer.data.relays : [], [second.url]);
    assert.ok(second.events().some((event) => event.content === "One of two"));
    assert.ok(!relay.events().some((event) => event.content === "One of two"));
  });

  it("never connects to a relay on a private address unless the host allows it", async () => {
    const before = relay.received.length;
    await assert.rejects(
      target([relay.url], null).syndicate(note(), publication, callOptions()),
      /refused: private address/,
    );
    // A name is looked up address by address: localhost resolves only to loopback addresses.
    const byName = relay.url.replace("127.0.0.1", "localhost");
    await assert.rejects(
      target([byName], null).syndicate(note(), publication, callOptions()),
      (error: SyndicationError) => error.message.includes(`${byName}: refused: private address`),
    );
    assert.equal(relay.received.length, before);
  });

  it("previews exactly the content it then signs: a note, an article, the user's own words", async () => {
    const syndicator = target();
    const posts = [
      note({ summary: "A summary", photo: [{ url: "https://example.org/media/a.png" }] }),
      note({ name: "An article", url: "https://example.org/articles/preview/", content: "Body" }),
    ];
    for (const post of posts) {
      const preview = syndicator.preview(post, publication);
      const url = await syndicator.syndicate(post, publication, callOptions());
      const code = nip19.decode(url.slice("https://njump.me/".length));
      const sent =
        code.type === "nevent"
          ? eventOf(relay, code.data.id)
          : relay
              .events()
              .find(
                (event) =>
                  event.kind === 30023 && event.tags[0]?.[1] === "https://example.org/articles/preview/",
              );
      assert.equal(sent?.content, preview.text);
      assert.deepEqual(
        preview.photos,
        code.type === "nevent" ? [{ url: "https://example.org/media/a.png" }] : [],
      );
    }
    assert.equal(
      syndicator.preview(posts[0] ?? {}, publication).text?.includes("https://example.org/notes/hello/"),
      true,
      "a summary links to the post",
    );
    const own = "My own words for Nostr";
    const ownPreview = syndicator.preview(note(), publication, { text: own });
    assert.equal(ownPreview.ownText, true);
    const url = await syndicator.syndicate(note(), publication, { ...callOptions(), text: own });
    const code = nip19.decode(url.slice("https://njump.me/".length));
    assert.equal(eventOf(relay, code.type === "nevent" ? code.data.id : "").content, own);
  });

  it("names the option and what to write when the key or a relay is wrong", () => {
    assert.throws(
      () => new NostrSyndicator({ relays: [relay.url] }, {}),
      /secretKey" is required \(or set NOSTR_SECRET_KEY, or give a remote signer as bunker\)/,
    );
    assert.throws(
      () => new NostrSyndicator({ secretKey: "npub1abc", relays: [relay.url] }, {}),
      /option "secretKey" must be an nsec1… private key/,
    );
    assert.throws(
      () => new NostrSyndicator({ secretKey: nsec, relays: ["http://relay.example"] }, {}),
      /option "relays.0" must be a relay address such as wss:\/\/relay.example/,
    );
    const fromEnv = new NostrSyndicator({ relays: [relay.url] }, { NOSTR_SECRET_KEY: nsec });
    assert.equal(fromEnv.info.uid, `nostr:${nip19.npubEncode(publicKey)}`);
    assert.ok(!JSON.stringify(fromEnv.options).includes(nsec), "the options shown never hold the key");
  });
});
