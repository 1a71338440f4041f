// Copy editing, the user's say over each copy of a post: what each target would receive (the
// preview), the user's own words for a target, and the decisions that end a target's wait for
// good (skip it, confirm a copy the user found). No network call is made.
import { z } from "zod";
import { type Post, PostNotFoundError } from "../../contract/posts.ts";
import type { CopyPreview, SiteText } from "../../contract/syndicator.ts";
import { CopyNotRemovableError, TargetNotConfirmableError, TargetNotSkippableError } from "../errors.ts";
import type { SyndicationParts } from "../parts.ts";
import { requestedTargets } from "../post-targets.ts";
import { idempotencyKey } from "../runs/idempotency-key.ts";
import type { LedgerEntry } from "../types.ts";
import { type OwnText, wordsFor } from "./own-texts.ts";

/** One target's preview of a post: null when its syndicator cannot preview (a third-party plug-in). */
export interface TargetPreview {
  uid: string;
  name: string;
  state: LedgerEntry["state"];
  /** The copy, once sent. */
  url?: string;
  ownText?: OwnText;
  /** The user's thread choice for this post and target (decision 0058); absent: the target's option. */
  threadChoice?: boolean;
  /** The site's choice for this target's text (a feed entry's), used where there is no ownText. */
  siteText?: SiteText;
  preview: CopyPreview | null;
}

const copyUrlSchema = z.url({ protocol: /^https?$/ });

export class CopyEditing {
  constructor(private readonly parts: SyndicationParts) {}

  /**
   * What each target of a post would receive now (decision 0025): every target the post names, and those
   * it was sent to, with the user's own words where there are some. No network call is made.
   */
  async preview(post: Post): Promise<TargetPreview[]> {
    const syndicators = this.parts.deps.syndicators();
    const [entries, texts, threadChoices] = await Promise.all([
      this.parts.ledger.entriesForPost(post.id),
      this.parts.ownTexts.forPost(post),
      this.parts.threadChoices.forPost(post),
    ]);
    const uids = [...new Set([...requestedTargets(post), ...entries.map((entry) => entry.targetUid)])];
    return uids.map((uid): TargetPreview => {
      const syndicator = syndicators.find((s) => s.info.uid === uid);
      const own = texts.get(uid);
      const words = wordsFor(post, texts, uid, threadChoices);
      const threadChoice = threadChoices.get(uid);
      const entry = entries.find((e) => e.targetUid === uid);
      const base = {
        uid,
        name: syndicator?.info.name ?? uid,
        state: entry?.state ?? "pending",
        ...(entry?.url ? { url: entry.url } : {}),
        ...(own ? { ownText: own } : {}),
        ...(words.site ? { siteText: words.site } : {}),
        ...(threadChoice === undefined ? {} : { threadChoice }),
      };
      if (!syndicator?.preview) return { ...base, preview: null };
      const preview = syndicator.preview(post.properties, this.parts.deps.publication, words);
      return { ...base, preview };
    });
  }

  /**
   * What one target would receive with `text` as the user's own words (nothing is saved): one post,
   * whatever the thread choice.
   */
  previewText(post: Post, targetUid: string, text: string): CopyPreview | null {
    const syndicator = this.parts.deps.syndicators().find((s) => s.info.uid === targetUid);
    if (!syndicator?.preview) return null;
    return syndicator.preview(post.properties, this.parts.deps.publication, { text });
  }

  /** The user chose a thread (true) or one cut post (false) for this post and target. */
  saveThreadChoice(post: Post, targetUid: string, thread: boolean): Promise<void> {
    return this.parts.threadChoices.save(post, targetUid, thread);
  }

  /** Back to the target's own `thread` option for this post. */
  resetThreadChoice(post: Post, targetUid: string): Promise<void> {
    return this.parts.threadChoices.reset(post, targetUid);
  }

  saveOwnText(post: Post, targetUid: string, text: string): Promise<void> {
    return this.parts.ownTexts.save(post, targetUid, text);
  }

  resetOwnText(post: Post, targetUid: string): Promise<void> {
    return this.parts.ownTexts.reset(post, targetUid);
  }

  ownTextsForPost(post: Post): Promise<Map<string, OwnText>> {
    return this.parts.ownTexts.forPost(post);
  }

  /**
   * The user confirms that a target has the post at `copyUrl` (after an unknown outcome): the
   * ledger records it and the post gets the URL and stops naming the target. Throws
   * PostNotFoundError, TargetNotConfirmableError, or a ZodError when copyUrl is not http(s).
   */
  async confirm(url: string, targetUid: string, copyUrl: string): Promise<LedgerEntry> {
    const copy = copyUrlSchema.parse(copyUrl);
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const entry = await this.parts.ledger.markSyndicated(post.id, targetUid, copy);
    if (!entry) throw new TargetNotConfirmableError(url, targetUid);
    await this.parts.deps.posts.update(url, {
      add: { syndication: [copy] },
      delete: { "mp-syndicate-to": [targetUid] },
    });
    await this.parts.ledger.markWrittenBack(post.id, [targetUid]);
    return { ...entry, writtenBack: true };
  }

  /**
   * The user chose not to send the post to `targetUid` ("Skip for this post"), after a failure or
   * when the target is no longer configured: the ledger says so and the post stops naming it.
   * Throws PostNotFoundError, or TargetNotSkippableError when the post neither names the target
   * nor has a record of it, or the target has the post or is being sent it right now.
   */
  async skip(url: string, targetUid: string): Promise<LedgerEntry> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const known = (await this.parts.ledger.entriesForPost(post.id)).some(
      (entry) => entry.targetUid === targetUid,
    );
    if (!known && !requestedTargets(post).includes(targetUid))
      throw new TargetNotSkippableError(url, targetUid);
    const entry = await this.parts.ledger.markSkipped(
      post.id,
      targetUid,
      idempotencyKey(post.url, targetUid),
    );
    if (!entry) throw new TargetNotSkippableError(url, targetUid);
    if (requestedTargets(post).includes(targetUid))
      await this.parts.deps.posts.update(url, { delete: { "mp-syndicate-to": [targetUid] } });
    return entry;
  }

  /**
   * "Undo a copy": the copy on `targetUid` is to be deleted from its service while the post stays.
   * The target then shows "removed by you" and is not sent the post again until `sendAgain`. The
   * deletion itself is a follow-up like a deleted post's (runs carry it out, retried as they are).
   * Throws PostNotFoundError, or CopyNotRemovableError when the target holds no copy of the post
   * or cannot delete its copies.
   */
  async removeCopy(url: string, targetUid: string): Promise<void> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const syndicator = this.parts.deps.syndicators().find((s) => s.info.uid === targetUid);
    const entry = (await this.parts.ledger.entriesForPost(post.id)).find((e) => e.targetUid === targetUid);
    if (!syndicator?.delete || entry?.state !== "syndicated" || !entry.url)
      throw new CopyNotRemovableError(url, targetUid);
    if (!(await this.parts.ledger.removeCopy(post.id, targetUid, entry.url)))
      throw new CopyNotRemovableError(url, targetUid);
  }

  /**
   * "Replace the thread" (decision 0062): the post's edit that `targetUid` keeps as sent (a service
   * without edits) is to be made by deleting the copy's thread and sending the post anew. The
   * replacement is a follow-up like any edit (runs carry it out, retried as they are). Returns false
   * when the target has no such edit of a copy sent as a thread.
   */
  async replaceThread(url: string, targetUid: string): Promise<boolean> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    const syndicator = this.parts.deps.syndicators().find((s) => s.info.uid === targetUid);
    if (!syndicator?.replace) return false;
    return this.parts.ledger.requestReplace(post.id, targetUid);
  }

  /**
   * "Send again" after "Undo a copy": the target is no longer one the user removed the copy from,
   * and the post names it again, so that the next run (or the caller, now) sends a new copy.
   * Returns false when the user had removed no copy of the post from the target.
   */
  async sendAgain(url: string, targetUid: string): Promise<boolean> {
    const post = await this.parts.deps.posts.findByUrl(url);
    if (!post || post.deleted) throw new PostNotFoundError(url);
    if (!(await this.parts.ledger.forgetRemoval(post.id, targetUid))) return false;
    if (!requestedTargets(post).includes(targetUid))
      await this.parts.deps.posts.update(url, { add: { "mp-syndicate-to": [targetUid] } });
    return true;
  }
}
