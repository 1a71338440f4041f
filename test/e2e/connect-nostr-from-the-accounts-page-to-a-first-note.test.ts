// Connecting Nostr in a real browser (Chromium): the owner signs in, pastes the private key, replaces
// the default relays with the test relay (a real one, @nostr-relay/core on 127.0.0.1) and presses
// Connect. The post written before (through Micropub, naming the account) then goes out by itself as
// a signed note. A pasted public key (npub1…) is refused on the page with the reason, the form keeps
// the relays typed, and the key is never rendered back.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as nip19 from "nostr-tools/nip19";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { type SandboxRelay, startNostrRelay } from "../../dev/sandbox/nostr-relay.ts";
import { until } from "../helpers/eventually.ts";
import { type AccountsPageWorld, startAccountsPageWorld } from "./accounts-page-world.ts";
import { SCREENSHOTS } from "./syndicate-world.ts";

describe("Connecting Nostr in the browser", () => {
  let relay: SandboxRelay;
  let world: AccountsPageWorld;
  const secretKey = generateSecretKey();
  const publicKey = getPublicKey(secretKey);
  const nsec = nip19.nsecEncode(secretKey);

  before(async () => {
    relay = await startNostrRelay();
    world = await startAccountsPageWorld();
  });
  after(async () => {
    await world?.close();
    await relay?.close();
  });

  it("pastes the key, edits the relays, connects, and the waiting post arrives as a signed note", async () => {
    const uid = `nostr:${nip19.npubEncode(publicKey)}`;
    await world.postWaitingFor(uid, "My first post for Nostr");

    const page = await world.signIn();

    const form = page.locator("#connect-nostr");
    const relays = form.getByLabel("Relays");
    assert.match(await relays.inputValue(), /^wss:\/\/relay\.damus\.io\n/, "the default relays, editable");

    // A public key is refused on the page, which keeps the relays typed.
    await form
      .getByLabel("Private key (nsec1…) or remote signer (bunker://…)")
      .fill(nip19.npubEncode(publicKey));
    await relays.fill(relay.url);
    await form.getByRole("button", { name: "Connect" }).click();
    await page.waitForLoadState();
    assert.match(
      (await page.locator("#connect-nostr [data-connect-error]").textContent()) ?? "",
      /This is your public key \(npub1…\)/,
    );
    assert.equal(await page.locator("#connect-nostr").getByLabel("Relays").inputValue(), relay.url);

    await page
      .locator("#connect-nostr")
      .getByLabel("Private key (nsec1…) or remote signer (bunker://…)")
      .fill(nsec);
    await page.locator("#connect-nostr").getByRole("button", { name: "Connect" }).click();
    await page.waitForURL((url) => url.pathname === "/syndicate/accounts" && url.search === "");
    assert.match((await page.getByRole("status").first().textContent()) ?? "", /Connected npub1/);
    assert.ok(!(await page.content()).includes(nsec), "the key is never rendered back");
    await page.screenshot({ path: join(SCREENSHOTS, "accounts-connected-nostr.png"), fullPage: true });

    await until("the first note reaches the relay", () =>
      relay.events().some((event) => event.content.startsWith("My first post for Nostr")),
    );
    const note = relay.events().find((event) => event.content.startsWith("My first post for Nostr"));
    assert.ok(note && verifyEvent({ ...note }), "signed and verifiable");
    assert.equal(note.pubkey, publicKey);
    assert.equal(note.kind, 1);
    assert.ok(world.server.host.syndicators.some((syndicator) => syndicator.info.uid === uid));
  });
});
