// A Nostr account whose key stays in a remote signer (NIP-46): connected with its bunker:// URI (the
// signer must accept `connect` with the URI's one-time secret and tell the user's public key; only
// a key of our own for the conversation is kept), then each event signed by the signer over a real
// relay (@nostr-relay/core on 127.0.0.1) and published there. A crash between signing and sending
// asks the signer nothing more: the retry sends the saved event. A signer that declines is reported.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { NostrEvent } from "nostr-tools/core";
import * as nip19 from "nostr-tools/nip19";
import { generateSecretKey, verifyEvent } from "nostr-tools/pure";
import { type SandboxRelay, startNostrRelay } from "../../dev/sandbox/nostr-relay.ts";
import { type SandboxRemoteSigner, startRemoteSigner } from "../../dev/sandbox/nostr-remote-signer.ts";
import { AccountError, type AccountInput } from "../../src/contract/accounts.ts";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { NostrSyndicator } from "../../src/syndicators/nostr/index.ts";
import { callOptions, hostAllowingPrivate, note, publication } from "./fixtures.ts";

describe("Nostr through a remote signer (NIP-46)", () => {
  let relay: SandboxRelay;
  let signer: SandboxRemoteSigner;
  let account: Omit<AccountInput, "type">;
  const context = () => ({ allowPrivate: true, signal: AbortSignal.timeout(30_000) });
  const syndicator = () => {
    const built = new NostrSyndicator({ ...account.options, ...account.secrets }, {});
    built.init(hostAllowingPrivate);
    return built;
  };

  before(async () => {
    relay = await startNostrRelay();
    signer = await startRemoteSigner(relay.url);
  });
  after(async () => {
    await signer.close();
    await relay.close();
  });

  it("connects with the bunker URI: the signer names the user's key, and no key of the user's is kept", async () => {
    account = await NostrSyndicator.account.connect({ secretKey: signer.uri, relays: relay.url }, context());
    assert.equal(account.options.publicKey, signer.userPublicKey);
    assert.equal(account.display.name.slice(0, 12), nip19.npubEncode(signer.userPublicKey).slice(0, 12));
    assert.deepEqual(Object.keys(account.secrets), ["clientSecretKey"]);
    assert.match(account.secrets.clientSecretKey ?? "", /^nsec1/);
    assert.ok(!String(account.options.bunker).includes("secret="), "the one-time secret is not kept");
    assert.deepEqual(account.options.relays, [relay.url]);
  });

  it("refuses the URI once its secret is used, and a bunker on a private address without permission", async () => {
    await assert.rejects(
      NostrSyndicator.account.connect({ secretKey: signer.uri, relays: relay.url }, context()),
      (error: AccountError) =>
        error instanceof AccountError &&
        error.key === "nostrSignerRefused" &&
        /wrong secret/.test(error.message),
    );
    await assert.rejects(
      NostrSyndicator.account.connect(
        { secretKey: signer.uri, relays: relay.url },
        { allowPrivate: false, signal: AbortSignal.timeout(30_000) },
      ),
      (error: AccountError) => error instanceof AccountError && error.key === "privateAddress",
    );
  });

  it("publishes events the signer signed with the user's key", async () => {
    const url = await syndicator().syndicate(
      note({ content: { text: "Signed far away", html: "" } }),
      publication,
      callOptions(),
    );
    const code = nip19.decode(url.slice("https://njump.me/".length));
    const id = code.type === "nevent" ? code.data.id : "";
    const event = relay.events().find((candidate) => candidate.id === id);
    assert.ok(event && verifyEvent({ ...event }));
    assert.equal(event.pubkey, signer.userPublicKey);
    assert.equal(signer.signed.at(-1), id);
  });

  it("after a crash between signing and sending, resends the saved event without asking the signer again", async () => {
    const post = note({ content: { text: "Signed once", html: "" } });
    let saved: string | undefined;
    await assert.rejects(
      syndicator().syndicate(post, publication, {
        ...callOptions("remote-crash"),
        checkpoint: async (value) => {
          saved = value;
          throw new Error("crash");
        },
      }),
      /crash/,
    );
    assert.ok(saved);
    const signedBefore = signer.signed.length;
    const { event } = JSON.parse(saved) as { event: NostrEvent };
    await syndicator().syndicate(post, publication, { ...callOptions("remote-crash"), resumeFrom: saved });
    assert.equal(signer.signed.length, signedBefore, "the signer was not asked again");
    assert.deepEqual(
      relay
        .events()
        .filter((candidate) => candidate.content === "Signed once")
        .map((candidate) => candidate.id),
      [event.id],
    );
  });

  it("reports a signer that declines, and sends nothing", async () => {
    signer.refuseSigning(true);
    try {
      await assert.rejects(
        syndicator().syndicate(note({ content: { text: "Declined", html: "" } }), publication, callOptions()),
        (error: SyndicationError) =>
          error instanceof SyndicationError &&
          error.permanent === false &&
          /Nostr: the event could not be signed: the user declined to sign/.test(error.message),
      );
      assert.ok(!relay.events().some((event) => event.content === "Declined"));
    } finally {
      signer.refuseSigning(false);
    }
  });

  it("refuses an event the signer signed with another key than the account's", async () => {
    signer.signWith(generateSecretKey());
    try {
      await assert.rejects(
        syndicator().syndicate(
          note({ content: { text: "Wrong key", html: "" } }),
          publication,
          callOptions(),
        ),
        /the remote signer signed with another key/,
      );
      assert.ok(!relay.events().some((event) => event.content === "Wrong key"));
    } finally {
      signer.signWith(null);
    }
  });
});
