// A Nostr account connected on the Accounts page, as a browser without JavaScript does it, and its
// copies sent by the scheduler to a real relay (@nostr-relay/core on 127.0.0.1, dev/sandbox). A
// malformed remote signer URI, a public key or anything else that is no private key is refused and
// stores nothing; a relay on a private address is refused unless the host allows it; the key is sealed
// (never in clear in the database) and never rendered back. The signed event is in the ledger
// before the relay sees it: a relay that refuses for a while (`rate-limited:`) gets that same event,
// same id, once it takes events again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { NostrEvent } from "nostr-tools/core";
import * as nip19 from "nostr-tools/nip19";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { type SandboxRelay, startNostrRelay } from "../../dev/sandbox/nostr-relay.ts";
import { startRemoteSigner } from "../../dev/sandbox/nostr-remote-signer.ts";
import { AccountError } from "../../src/contract/accounts.ts";
import { type EndpointServer, startEndpointServer } from "../endpoint/endpoint-server.ts";
import { postAccountsForm } from "../helpers/accounts-form.ts";
import { pgliteEngine } from "../helpers/databases.ts";
import { until } from "../helpers/eventually.ts";
import { looks, ServerClock, schedulerOf } from "../schedule/scheduled-server.ts";

describe("a Nostr account connected from the page", () => {
  let relay: SandboxRelay;
  let app: EndpointServer;
  let session: { cookie: string; csrf: string };
  const clock = new ServerClock();
  const secretKey = generateSecretKey();
  const nsec = nip19.nsecEncode(secretKey);
  const npub = nip19.npubEncode(getPublicKey(secretKey));
  const uid = `nostr:${npub}`;

  before(async () => {
    relay = await startNostrRelay();
    app = await startEndpointServer({
      engine: pgliteEngine,
      targets: [],
      pluginOptions: { schedule: { enabled: true, whenLive: false } },
      config: { fetch: { allowPrivate: true } },
      clock,
      env: {},
    });
    session = await app.server.signIn();
  });
  after(async () => {
    await app?.close();
    await relay?.close();
  });

  const accounts = () => {
    assert.ok(app.server.host.accounts);
    return app.server.host.accounts;
  };
  const connect = (fields: Record<string, string>) =>
    postAccountsForm(app.url, session, "nostr", { relays: relay.url, ...fields });
  const page = async () =>
    (
      await fetch(`${app.url}/syndicate/accounts`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      })
    ).text();
  const ledger = async () =>
    (
      await app.server.host.database?.query<{ state: string; checkpoint: string | null; url: string | null }>(
        "SELECT state, checkpoint, url FROM syndication_targets WHERE target_uid = $1",
        [uid],
      )
    )?.rows ?? [];

  it("offers a form with the default relays, editable", async () => {
    const html = await page();
    assert.match(html, /id="accounts-nostr"/);
    assert.match(
      html,
      /<textarea id="connect-nostr-relays" name="relays"[^>]*>wss:\/\/relay\.damus\.io\nwss:\/\/nos\.lol/,
    );
  });

  it("refuses a malformed bunker URI, a public key and a malformed key with the reason, storing nothing", async () => {
    const bunker = await connect({ secretKey: "bunker://abcdef?relay=wss://relay.example&secret=xyz" });
    assert.equal(bunker.status, 400);
    assert.match(await bunker.text(), /This bunker:\/\/ address names no signer and relay/);
    const npubAnswer = await connect({ secretKey: npub });
    assert.match(await npubAnswer.text(), /This is your public key \(npub1…\)/);
    const garbage = await connect({ secretKey: "nsec1notakey" });
    assert.equal(garbage.status, 400);
    const html = await garbage.text();
    assert.match(html, /This is not a Nostr private key/);
    assert.ok(!html.includes("nsec1notakey"), "the pasted key is not rendered back");
    const badRelay = await connect({ secretKey: nsec, relays: "https://relay.example" });
    assert.match(await badRelay.text(), /https:\/\/relay\.example is not a relay address/);
    assert.deepEqual(await accounts().list(), []);
  });

  it("refuses a relay on a private address when the host does not allow private addresses", async () => {
    const strict = await startEndpointServer({ engine: pgliteEngine, targets: [], env: {} });
    try {
      const answer = await postAccountsForm(strict.url, await strict.server.signIn(), "nostr", {
        secretKey: nsec,
        relays: relay.url,
      });
      assert.equal(answer.status, 400);
      assert.match(await answer.text(), /127\.0\.0\.1:\d+ is on a private address/);
      assert.deepEqual(await strict.server.host.accounts?.list(), []);
      await assert.rejects(
        strict.server.host.accounts?.connect(
          "nostr",
          { secretKey: nsec, relays: "ws://localhost:9" },
          { signal: AbortSignal.timeout(30_000) },
        ) ?? Promise.reject(new Error("no accounts")),
        (error: AccountError) => error instanceof AccountError && error.key === "privateAddress",
      );
    } finally {
      await strict.close();
    }
  });

  it("connects with the nsec and the relay list; the key is sealed and never shown", async () => {
    const answer = await connect({ secretKey: nsec });
    assert.equal(answer.status, 303);
    const [account] = await accounts().list();
    assert.equal(account?.uid, uid);
    assert.deepEqual(account?.options.relays, [relay.url]);
    const html = await page();
    assert.match(html, /data-account-state="connected"/);
    assert.ok(!html.includes(nsec));
    const reconnect = await (
      await fetch(`${app.url}/syndicate/accounts?reconnect=${account?.id}`, {
        headers: { cookie: session.cookie, accept: "text/html" },
      })
    ).text();
    assert.ok(reconnect.includes(`>${relay.url}</textarea>`), "Reconnect shows the relays");
    assert.ok(!reconnect.includes(nsec), "never the key");
    const { rows } = (await app.server.host.database?.query<{ row: string }>(
      "SELECT row_to_json(t)::text AS row FROM connected_accounts t",
    )) ?? { rows: [] };
    assert.equal(rows.length, 1);
    assert.ok(
      !rows.some(({ row }) => row.includes(nsec) || row.includes(Buffer.from(secretKey).toString("hex"))),
    );
  });

  it("saves the signed event in the ledger before sending, and resends that event after a refusal", async () => {
    relay.refuse("rate-limited: slow down");
    await app.createPost({ content: "Sent through the scheduler", targets: [uid] });
    await until("the relay refused the first attempt", () => relay.received.length === 1);
    await clock.sleeping();
    const [row] = await ledger();
    assert.ok(row?.checkpoint, "the ledger holds the signed event");
    const saved = (JSON.parse(row.checkpoint) as { event: NostrEvent }).event;
    assert.equal(saved.id, relay.received[0]);
    assert.ok(verifyEvent({ ...saved }));
    assert.ok(!relay.events().some((event) => event.id === saved.id), "not taken yet");

    relay.refuse(null);
    await clock.advance(24 * 3_600_000);
    await until("the ledger says syndicated", async () => (await ledger())[0]?.state === "syndicated");
    await looks(schedulerOf(app));
    const copies = relay.events().filter((event) => event.content.startsWith("Sent through the scheduler"));
    assert.deepEqual(
      copies.map((event) => event.id),
      [saved.id],
    );
    assert.deepEqual([...new Set(relay.received)], [saved.id], "only that event was ever sent");
    const url = (await ledger())[0]?.url ?? "";
    const pointer = nip19.decode(url.slice("https://njump.me/".length));
    assert.equal(pointer.type === "nevent" ? pointer.data.id : "", saved.id);
  });

  it("connects a remote signer's bunker:// URI from the same form, keeping no key of the user's", async () => {
    const signer = await startRemoteSigner(relay.url);
    try {
      const answer = await connect({ secretKey: signer.uri });
      assert.equal(answer.status, 303);
      const remote = (await accounts().list()).find(
        (account) => account.options.publicKey === signer.userPublicKey,
      );
      assert.ok(remote, "the account is named by the key the signer holds");
      assert.deepEqual(Object.keys(remote.secretsSetAt), ["clientSecretKey"]);
      const secret = new URL(signer.uri.replace("bunker://", "https://")).searchParams.get("secret") ?? "";
      assert.ok(!JSON.stringify(remote.options).includes(secret), "the URI's one-time secret is not kept");
      const html = await page();
      assert.match(html, /Remote signer connection/, "the page says what is stored");
      await app.createPost({ content: "Signed by the remote signer", targets: [remote.uid] });
      await until("the signer's note reached the relay", () =>
        relay.events().some((event) => event.content.startsWith("Signed by the remote signer")),
      );
      const sent = relay.events().find((event) => event.content.startsWith("Signed by the remote signer"));
      assert.equal(sent?.pubkey, signer.userPublicKey);
      await accounts().remove(remote.id);
    } finally {
      await signer.close();
    }
  });

  it("disconnecting forgets the key and says that a Nostr key cannot be revoked", async () => {
    const [account] = await accounts().list();
    const answer = await postAccountsForm(
      app.url,
      session,
      `${account?.id}/disconnect`,
      {},
      "application/json",
    );
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { revoked: boolean; by_hand: string };
    assert.equal(body.revoked, false);
    assert.match(body.by_hand, /A Nostr key cannot be revoked/);
    assert.deepEqual(await accounts().list(), []);
  });
});
