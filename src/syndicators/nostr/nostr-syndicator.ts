// @possekit/syndicator-nostr: publishes each post to Nostr relays as a note (kind 1) or, when it has
// a title, a long-form article (NIP-23, kind 30023), signed with the account's private key.
//
// Never a duplicate, never re-signed: an event's id is the hash of its content, author and time, so
// signing the same post twice a second apart makes two different notes. The event is therefore
// signed once and saved with the send (SyndicateOptions.checkpoint) before any relay sees it; every
// later attempt sends that saved event again, and a relay that has it already answers
// `OK true "duplicate: …"`. The copy is sent once at least one relay takes it.
import type { NostrEvent } from "nostr-tools/core";
import { verifyEvent } from "nostr-tools/pure";
import type { PluginMeta, Server, SyndicatorPlugin } from "../../contract/plugin.ts";
import { SyndicationError } from "../../contract/syndication-error.ts";
import type {
  CopyChangeOptions,
  CopyPreview,
  PostProperties,
  PreviewOptions,
  Publication,
  SyndicateOptions,
  SyndicatorInfo,
} from "../../contract/syndicator.ts";
import { credentialSetting, HOST_NOT_JOINED, joinHost } from "../../contract/syndicator-kit.ts";
import { shownOptions } from "../shared/shown-options.ts";
import { nostrAccount } from "./nostr-account.ts";
import { ARTICLE_KIND, composeNostr, type UnsignedContent } from "./nostr-compose.ts";
import { copyAddress, copyUrl } from "./nostr-copy-url.ts";
import { npubOf } from "./nostr-keys.ts";
import { type NostrOptions, nostrPluginId, parseNostrOptions } from "./nostr-options.ts";
import { describeAnswers, isLastingRefusal, publishToRelays, type RelayAnswer } from "./nostr-relays.ts";
import { bunkerUri, localSigner, type NostrSigner, remoteSigner } from "./nostr-signer.ts";

/** How long one relay may take to connect and answer an EVENT. */
const RELAY_TIMEOUT_MS = 15_000;
/** NIP-09's deletion request. */
const DELETION_KIND = 5;

export class NostrSyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-nostr";
  /** Connecting and disconnecting an account from the Accounts page. */
  static readonly account = nostrAccount;
  readonly id = nostrPluginId;
  readonly name = "Nostr";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Publishes a copy of each post to Nostr relays",
  };
  /** The options, without the private key. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /**
   * An article's edit publishes it again, its image tags from the post's photos now (decision 0060);
   * a note is not edited at all.
   */
  readonly updatesPhotos = true;
  /** A retry sends the event saved before the first attempt: the relays see the same id again. */
  readonly honoursIdempotencyKey = true;
  readonly #options: NostrOptions;
  readonly #now: () => Date;
  readonly #signer: NostrSigner;
  /** The host's fetch.allowPrivate, read in init(): relays on private addresses are refused without it. */
  #host = HOST_NOT_JOINED;
  readonly credentialSetting: string;
  readonly addressSetting = `"${NostrSyndicator.packageName}".relays`;

  constructor(
    options: Record<string, unknown> = {},
    env: NodeJS.ProcessEnv = process.env,
    /** When events are signed (their created_at); the tests turn it. */
    now: () => Date = () => new Date(),
  ) {
    this.#options = parseNostrOptions(options, env);
    this.#now = now;
    const { signing, publicKey } = this.#options;
    // Never a key: the remote signer's address (without its secret) at most.
    this.options = {
      ...shownOptions(this.#options, options, ["signing"]),
      ...(signing.kind === "remote" ? { bunker: bunkerUri(signing.bunker) } : {}),
    };
    this.#signer =
      signing.kind === "key"
        ? localSigner(signing.secretKey)
        : remoteSigner(signing.clientSecretKey, signing.bunker, publicKey, () => this.#host.allowPrivate);
    this.credentialSetting = credentialSetting(NostrSyndicator.packageName, options, {
      options: ["secretKey"],
      environment: ["NOSTR_SECRET_KEY"],
    });
    const npub = npubOf(publicKey);
    const profile = `${this.#options.viewerUrl}${npub}`;
    const name = `${npub.slice(0, 12)}…${npub.slice(-6)}`;
    this.info = {
      uid: `nostr:${npub}`,
      name,
      service: { name: "Nostr", url: "https://nostr.com/" },
      user: { name, url: profile },
    };
  }

  init(server: Server): void {
    this.#host = joinHost(server, this);
  }

  /** What syndicate() would sign and send now. */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeNostr(properties, publication, this.#options, options).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    let event = this.#savedEvent(options.resumeFrom);
    if (!event) {
      const copy = composeNostr(properties, publication, this.#options, options);
      if (!copy.event.content.trim())
        throw new SyndicationError("Nostr: the post has no text or photo to publish", { permanent: true });
      event = await this.#sign(copy.event, options.signal);
      // Saved before any relay sees it: a crash from here on leaves the same event for the retry.
      await options.checkpoint?.(JSON.stringify({ event }));
    }
    const answers = await this.#publish(event, options.signal);
    return copyUrl(this.#options.viewerUrl, event, acceptedRelays(answers));
  }

  /**
   * An article is addressable: the edit is published as a new event with the same `d` tag, which
   * replaces it on every relay. A note cannot be edited on Nostr: it is kept as it was sent.
   */
  async update(
    properties: PostProperties,
    publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const address = copyAddress(options.url);
    if (address?.type !== "address" || address.kind !== ARTICLE_KIND) return;
    this.#ownAddress(address.pubkey, options.url);
    const copy = composeNostr(properties, publication, this.#options, options);
    if (copy.event.kind !== ARTICLE_KIND) return;
    // The same `d` as the copy's, even if the post's URL changed: the edit replaces that article.
    const tags = copy.event.tags.map((tag) => (tag[0] === "d" ? ["d", address.identifier] : tag));
    await this.#publish(await this.#sign({ ...copy.event, tags }, options.signal), options.signal);
  }

  /** Sends a deletion request (NIP-09, kind 5) for the note or the article; relays drop what they have. */
  async delete(
    _properties: PostProperties,
    _publication: Publication,
    options: CopyChangeOptions,
  ): Promise<void> {
    const address = copyAddress(options.url);
    if (!address)
      throw new SyndicationError(
        `Nostr: cannot delete ${options.url}: it names no Nostr event (nevent1… or naddr1…)`,
        {
          permanent: true,
        },
      );
    const tags =
      address.type === "address"
        ? [
            ["a", `${address.kind}:${this.#ownAddress(address.pubkey, options.url)}:${address.identifier}`],
            ["k", String(address.kind)],
          ]
        : [
            ["e", address.id],
            ["k", String(address.kind ?? 1)],
          ];
    if (address.type === "event" && address.author) this.#ownAddress(address.author, options.url);
    const request = await this.#sign({ kind: DELETION_KIND, tags, content: "" }, options.signal);
    await this.#publish(request, options.signal);
  }

  #ownAddress(pubkey: string, url: string): string {
    if (pubkey !== this.#options.publicKey)
      throw new SyndicationError(`Nostr: will not change ${url}: it is another key's event`, {
        permanent: true,
      });
    return pubkey;
  }

  async #sign(content: UnsignedContent, signal: AbortSignal): Promise<NostrEvent> {
    const created_at = Math.floor(this.#now().getTime() / 1000);
    try {
      return await this.#signer.sign({ ...content, created_at }, signal);
    } catch (error) {
      throw new SyndicationError(`Nostr: the event could not be signed: ${(error as Error).message}`, {
        permanent: false,
        cause: error,
      });
    }
  }

  /** The event an earlier attempt signed and saved, if it is a valid event of this key. */
  #savedEvent(resumeFrom: string | undefined): NostrEvent | undefined {
    if (!resumeFrom) return undefined;
    try {
      const { event } = JSON.parse(resumeFrom) as { event?: NostrEvent };
      if (event && verifyEvent(event) && event.pubkey === this.#options.publicKey) return event;
    } catch {
      // Not ours (another version's note): sign anew, as for a first attempt.
    }
    return undefined;
  }

  /** Sends to every relay; the event is out once one of them answers `OK true`. */
  async #publish(event: NostrEvent, signal: AbortSignal): Promise<RelayAnswer[]> {
    const answers = await publishToRelays(event, this.#options.relays, {
      allowPrivate: this.#host.allowPrivate,
      signal,
      timeoutMs: RELAY_TIMEOUT_MS,
    });
    if (answers.some((answer) => answer.accepted)) return answers;
    throw new SyndicationError(`Nostr: no relay took the event: ${describeAnswers(answers)}`, {
      // Every relay refused it for good (blocked, invalid, restricted, pow): sending it again cannot help.
      permanent: answers.every(isLastingRefusal),
    });
  }
}

function acceptedRelays(answers: readonly RelayAnswer[]): string[] {
  return answers.filter((answer) => answer.accepted).map((answer) => answer.relay);
}
