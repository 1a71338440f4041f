// @possekit/syndicator-bluesky: posts a copy of each post to Bluesky (AT Protocol) with an app
// password: its text with facets, its photos with alt text, or a link card for the post; likes,
// reposts and replies of Bluesky posts become likes, reposts and replies.
import { firstUrl, postLanguage } from "../../contract/jf2.ts";
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
  ThreadOptions,
} from "../../contract/syndicator.ts";
import { credentialSetting, HOST_NOT_JOINED, joinHost } from "../../contract/syndicator-kit.ts";
import { writeThreadProgress } from "../../contract/thread-progress.ts";
import { copyKind } from "../shared/copy-kind.ts";
import type { Target } from "../shared/http.ts";
import { threadOptionsOf } from "../shared/thread-options.ts";
import { blueskyAccount } from "./bluesky-account.ts";
import {
  actionsOn,
  createOnce,
  didOf,
  likeCollection,
  postCollection,
  replyRootSchema,
  repostCollection,
  subjectOf,
} from "./bluesky-actions.ts";
import { type BlobRef, BlueskyApi, type BlueskySession, type RecordRef } from "./bluesky-api.ts";
import { type BlueskyCopy, composeBluesky } from "./bluesky-compose.ts";
import { detectFacets } from "./bluesky-facets.ts";
import { cardThumb, type Image, uploadPhotos } from "./bluesky-media.ts";
import { type BlueskyOptions, blueskyPluginId, parseBlueskyOptions } from "./bluesky-options.ts";
import { blueskyPostAddress, blueskyPostPage } from "./bluesky-post-url.ts";
import { BlueskySessions } from "./bluesky-session.ts";
import {
  buildThread,
  deleteRecords,
  deleteThread,
  findThreadSentBefore,
  replaceThread,
  threadPosts,
  writeThread,
} from "./bluesky-thread.ts";
import { recordKeyFor, recordKeyRange } from "./record-key.ts";

export class BlueskySyndicator implements SyndicatorPlugin {
  static readonly packageName = "@possekit/syndicator-bluesky";
  /** Connecting and disconnecting an account from the Accounts page. */
  static readonly account = blueskyAccount;
  readonly id = blueskyPluginId;
  readonly name = "Bluesky";
  readonly meta: PluginMeta = {
    url: import.meta.url,
    description: "Posts a copy of each post to a Bluesky account",
  };
  /** The options, without the app password. */
  readonly options: Record<string, unknown>;
  readonly info: SyndicatorInfo;
  /** The record key is derived from the idempotency key, so a repeat finds the first post. */
  readonly honoursIdempotencyKey = true;
  readonly #options: BlueskyOptions;
  /** The host's rules for fetching photos, read in init(). */
  #host = HOST_NOT_JOINED;
  /** One session for every post (bluesky-session.ts). */
  readonly #sessions: BlueskySessions;
  readonly credentialSetting: string;
  readonly addressSetting = `"${BlueskySyndicator.packageName}".serviceUrl`;
  readonly threads: ThreadOptions;

  constructor(options: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env) {
    this.#options = parseBlueskyOptions(options, env);
    this.#sessions = new BlueskySessions(this.#options.handle, this.#options.password);
    const { password: _secret, ...rest } = this.#options;
    this.options = rest;
    this.threads = threadOptionsOf(this.#options);
    this.credentialSetting = credentialSetting(BlueskySyndicator.packageName, options, {
      options: ["password"],
      environment: ["BLUESKY_PASSWORD"],
    });
    const profile = `https://bsky.app/profile/${this.#options.handle}`;
    this.info = {
      uid: profile,
      name: `@${this.#options.handle}`,
      service: { name: "Bluesky", url: "https://bsky.app/" },
      user: { name: `@${this.#options.handle}`, url: profile },
    };
  }

  init(server: Server): void {
    this.#host = joinHost(server, this);
  }

  /** Signs in (or reuses the session, renewing it as a send would) and asks who it is: posts nothing. */
  async verify({ signal }: { signal: AbortSignal }): Promise<void> {
    const api = new BlueskyApi(this.#options.serviceUrl, { name: "Bluesky", signal });
    await this.#sessions.use(api, (session) => api.getSession(session));
  }

  /** What syndicate() would send now: the text, the photos with their alt text, the link card. */
  preview(properties: PostProperties, publication: Publication, options: PreviewOptions = {}): CopyPreview {
    return composeBluesky(properties, publication, this.#options, options).preview;
  }

  async syndicate(
    properties: PostProperties,
    publication: Publication,
    options: SyndicateOptions,
  ): Promise<string> {
    const { idempotencyKey, signal } = options;
    const target: Target = { name: "Bluesky", signal };
    const api = new BlueskyApi(this.#options.serviceUrl, target);
    const rkey = recordKeyFor(idempotencyKey);
    const likeOf = firstUrl(properties, "like-of", publication.me);
    const repostOf = firstUrl(properties, "repost-of", publication.me);
    return this.#sessions.use(api, async (session) => {
      for (const [url, what, subjectCollection] of [
        [likeOf, "like", likeCollection],
        [repostOf, "repost", repostCollection],
      ] as const) {
        if (!url) continue;
        const subject = await subjectOf(api, url, what);
        await createOnce(api, session, subjectCollection, rkey, {
          $type: subjectCollection,
          subject: { uri: subject.uri, cid: subject.cid },
          createdAt: new Date().toISOString(),
        });
        // A like or repost has no page of its own: its syndication URL is the post it is about.
        return blueskyPostPage(subject.did, subject.rkey);
      }
      const { record, thread, replyTo } = await this.#records(api, session, target, properties, publication, {
        ...(options.text === undefined ? {} : { text: options.text }),
        ...(options.site === undefined ? {} : { site: options.site }),
      });
      if (thread) {
        const posts = await buildThread({
          did: session.did,
          idempotencyKey,
          bodies: thread,
          replyTo,
          createdAt: new Date(),
        });
        const page = await writeThread(api, session, posts);
        // The thread's posts, kept with the copy for its deletion (decision 0062).
        const sent = threadPosts(session.did, posts);
        await options.checkpoint?.(writeThreadProgress({ total: sent.length, sent }));
        return page;
      }
      if (replyTo) record.reply = replyTo;
      await createOnce(api, session, postCollection, rkey, record);
      return blueskyPostPage(session.did, rkey);
    });
  }

  /**
   * The post's records: the first with its photos or link card, and for a thread every post's
   * (without createdAt, which buildThread sets); with the reply they join when the post answers one.
   */
  async #records(
    api: BlueskyApi,
    session: BlueskySession,
    target: Target,
    properties: PostProperties,
    publication: Publication,
    words: PreviewOptions,
  ): Promise<{
    record: Record<string, unknown>;
    thread?: Record<string, unknown>[];
    replyTo?: { root: RecordRef; parent: RecordRef } | undefined;
  }> {
    const inReplyTo = firstUrl(properties, "in-reply-to", publication.me);
    const parent = inReplyTo ? await subjectOf(api, inReplyTo, "reply to") : undefined;
    const copy = composeBluesky(properties, publication, this.#options, words);
    const sources = {
      ownSite: publication.me,
      allowPrivate: this.#host.allowPrivate,
      media: this.#host.media,
    };
    const images = await uploadPhotos(api, session, target, copy.photos, sources);
    const thumb = copy.card
      ? await cardThumb(api, session, target, sources, copy.card.uri, copy.preview.linkCard?.image)
      : undefined;
    const record = await this.#record(properties, copy.text, copy, images, api, thumb);
    // A reply names its parent and the thread's first post (the parent's root, if it has one).
    const parentRef = parent ? { uri: parent.uri, cid: parent.cid } : undefined;
    const root = parentRef
      ? (replyRootSchema.safeParse(parent?.value?.reply).data?.root ?? parentRef)
      : undefined;
    const replyTo =
      parentRef && root ? { root: { uri: root.uri, cid: root.cid }, parent: parentRef } : undefined;
    if (!copy.thread) return { record, replyTo };
    const bodies = [{ ...record }];
    for (const text of copy.thread.slice(1))
      bodies.push(await this.#record(properties, text, undefined, [], api, undefined));
    for (const body of bodies) delete body.createdAt;
    return { record, thread: bodies, replyTo };
  }

  /**
   * "Replace the thread" (decision 0062): Bluesky has no edits, so at the user's asking the copy's
   * posts (every post of its thread) are deleted and the post as it is now is written in their
   * place, in one commit, with record keys from this change's key. Replies to the old posts are
   * lost. Only a post of this account's own that possekit made is replaced.
   */
  async replace(
    properties: PostProperties,
    publication: Publication,
    options: CopyChangeOptions,
  ): Promise<string> {
    const target: Target = { name: "Bluesky", signal: options.signal };
    const api = new BlueskyApi(this.#options.serviceUrl, target);
    const address = blueskyPostAddress(options.url);
    if (copyKind(properties, publication) !== "post" || !address) {
      throw new SyndicationError(`Bluesky: only a post's own copy can be replaced, not ${options.url}`, {
        permanent: true,
      });
    }
    return this.#sessions.use(api, async (session) => {
      const did = await didOf(api, session, address.actor, options.url);
      if (!madeByUs(did, session.did, address.rkey))
        throw new SyndicationError(`Bluesky: ${options.url} is not a post possekit made for this account`, {
          permanent: true,
        });
      const { record, thread, replyTo } = await this.#records(api, session, target, properties, publication, {
        ...(options.text === undefined ? {} : { text: options.text }),
        ...(options.site === undefined ? {} : { site: options.site }),
      });
      if (!thread) delete record.createdAt;
      const posts = await buildThread({
        did: session.did,
        idempotencyKey: options.idempotencyKey,
        bodies: thread ?? [record],
        replyTo,
        createdAt: new Date(),
      });
      const old = options.threadPosts ?? [
        { id: `at://${session.did}/${postCollection}/${address.rkey}`, url: options.url },
      ];
      const page = await replaceThread(api, session, old, posts);
      await options.saveThread?.(threadPosts(session.did, posts));
      return page;
    });
  }

  /**
   * Deletes the copy at `url`, always from this account's own repository. A post copy's URL names
   * its record (at://<did>/app.bsky.feed.post/<rkey>). A like or repost has no page: its URL is the
   * post it is about, so the deleted post says which record is the copy (like-of: our like of that
   * post, repost-of: our repost, else our post), found within the record keys possekit makes. A
   * record already gone counts as deleted (the PDS answers its delete with success). Two records of
   * ours that could each be the copy are refused, not guessed.
   */
  async delete(
    properties: PostProperties,
    publication: Publication,
    { url, signal, threadPosts: thread, sentKey }: CopyChangeOptions,
  ): Promise<void> {
    const api = new BlueskyApi(this.#options.serviceUrl, { name: "Bluesky", signal });
    const address = blueskyPostAddress(url);
    if (!address) {
      throw new SyndicationError(
        `Bluesky: cannot delete ${url}: it is not the address of a Bluesky post (https://bsky.app/profile/…/post/…)`,
        { permanent: true },
      );
    }
    const kind = copyKind(properties, publication);
    await this.#sessions.use(api, async (session) => {
      const did = await didOf(api, session, address.actor, url);
      const ourPost = madeByUs(did, session.did, address.rkey);
      if (kind === "post" && ourPost) {
        // Every post of a thread, in one commit (decision 0062).
        if (thread && thread.length > 1) await deleteThread(api, session, thread);
        else {
          // A thread sent before its posts were kept: found from the send's key (decision 0064).
          const sentBefore =
            thread || !sentKey ? [] : await findThreadSentBefore(api, session, address.rkey, sentKey);
          if (sentBefore.length > 1) await deleteRecords(api, session, sentBefore);
          else await api.deleteRecord(session, postCollection, address.rkey);
        }
        return;
      }
      // Someone else's post (or one made in an app) is never deleted: only our like or repost of it.
      // A post that is neither, whose copy is not a post of ours, was a like or a repost when it
      // was sent: either could be the copy.
      const postUri = `at://${did}/${postCollection}/${address.rkey}`;
      const actions = await actionsOn(api, session, postUri, kind);
      if (actions.length > 1) {
        throw new SyndicationError(
          `Bluesky: will not delete ${url}: @${this.#options.handle} has more than one ${kind === "post" ? "like or repost" : kind} of it that could be this copy; delete it on Bluesky`,
          { permanent: true },
        );
      }
      // With none left, it was undone already, perhaps by an attempt whose answer was lost.
      const [only] = actions;
      if (only) await api.deleteRecord(session, only.collection, only.rkey);
    });
  }

  /** A post's record: `text` with its facets, and the photos or the card of `copy` (the first post's). */
  async #record(
    properties: PostProperties,
    text: string,
    copy: BlueskyCopy | undefined,
    images: Image[],
    api: BlueskyApi,
    thumb: BlobRef | undefined,
  ): Promise<Record<string, unknown>> {
    const card = copy?.card;
    const facets = await detectFacets(text, (handle) => api.resolveHandle(handle));
    const record: Record<string, unknown> = {
      $type: postCollection,
      text,
      createdAt: new Date().toISOString(),
    };
    if (facets.length > 0) record.facets = facets;
    const lang = postLanguage(properties);
    if (lang) record.langs = [lang];
    if (images.length > 0) {
      record.embed = { $type: "app.bsky.embed.images", images };
    } else if (card) {
      record.embed = {
        $type: "app.bsky.embed.external",
        external: thumb ? { ...card, thumb } : card,
      };
    }
    return record;
  }
}

/**
 * A record of the session's own repository that possekit made: its record key comes from
 * recordKeyFor(); one made in an app has not.
 */
function madeByUs(did: string, sessionDid: string, rkey: string): boolean {
  return did === sessionDid && rkey > recordKeyRange.after && rkey <= recordKeyRange.last;
}
