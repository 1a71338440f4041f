// Calls one syndicator under its own timeout. Whatever the syndicator does (throw, hang, ignore the
// abort signal, return garbage) this settles within the timeout with an outcome, and never rejects.
import { z } from "zod";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type {
  CopyChangeOptions,
  PostProperties,
  PreviewOptions,
  Publication,
} from "../../contract/syndicator.ts";
import type { ThreadPost } from "../../contract/thread-progress.ts";
import type { FollowUp } from "../types.ts";

export const DEFAULT_TARGET_TIMEOUT_MS = 30_000;

export type SyndicatorOutcome = { ok: true; url: string } | ({ ok: false } & SyndicatorFailure);

export interface SyndicatorFailure {
  error: string;
  /** Retrying the same request cannot succeed (401, 403, 422…): wait for the user. */
  permanent: boolean;
  /** The HTTP status the target answered, when it answered. */
  status?: number;
  /** When the target said it would take requests again (Retry-After, rate-limit reset). */
  retryAt?: Date;
  /**
   * The request may have reached the target and been carried out (a timeout, a connection lost
   * after sending): a target without idempotency must not get it again automatically.
   */
  uncertain: boolean;
}

const copyUrl = z.url({ protocol: /^https?$/ });

/**
 * Syndicators signal a refusal that retrying cannot fix with `permanent: true` on what they throw
 * (SyndicationError in src/syndicators does). Read structurally, so that a syndicator from another
 * package with its own error class is understood too.
 */
function isPermanent(error: unknown): boolean {
  return typeof error === "object" && error !== null && "permanent" in error && error.permanent === true;
}

/** The structural fields a syndicator's error may carry (SyndicationError has them all). */
export function failureOf(error: unknown): SyndicatorFailure {
  const fields = typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
  const status = typeof fields.status === "number" ? fields.status : undefined;
  const wait = fields.retryAfterSeconds;
  const retryAt =
    typeof wait === "number" && Number.isFinite(wait) && wait >= 0
      ? new Date(Date.now() + wait * 1000)
      : undefined;
  return {
    error: describe(error),
    permanent: isPermanent(error),
    uncertain: fields.uncertain === true,
    ...(status === undefined ? {} : { status }),
    ...(retryAt ? { retryAt } : {}),
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string" && error) return error;
  return "The syndicator failed without saying why";
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** How one send is made: its key, its time limit and what an earlier attempt left to resume. */
export interface SendOptions {
  idempotencyKey: string;
  timeoutMs: number;
  resumeFrom?: string | undefined;
  checkpoint?: (value: string) => Promise<void>;
  /** The user's own words for this post and target, or the site's choice (`wordsFor`). */
  words?: PreviewOptions | undefined;
}

/** What a send or an edit is told of the post's words for the target: each only when there is one. */
function told(words: PreviewOptions | undefined): PreviewOptions {
  return {
    ...(words?.text === undefined ? {} : { text: words.text }),
    ...(words?.site === undefined ? {} : { site: words.site }),
    ...(words?.thread === undefined ? {} : { thread: words.thread }),
  };
}

export async function callSyndicator(
  syndicator: SyndicatorPlugin,
  properties: PostProperties,
  publication: Publication,
  { idempotencyKey, timeoutMs, resumeFrom, checkpoint, words }: SendOptions,
): Promise<SyndicatorOutcome> {
  return settleWithin(syndicator, timeoutMs, (signal) =>
    syndicator
      .syndicate(properties, publication, {
        idempotencyKey,
        signal,
        ...(resumeFrom ? { resumeFrom } : {}),
        ...(checkpoint ? { checkpoint } : {}),
        ...told(words),
      })
      .then((returned): SyndicatorOutcome => {
        const parsed = copyUrl.safeParse(returned);
        if (parsed.success) return { ok: true, url: parsed.data };
        const what = typeof returned === "string" && returned ? `"${returned.slice(0, 200)}"` : "nothing";
        return {
          ok: false,
          error: `${syndicator.info.name} returned ${what} instead of the URL of the copy`,
          permanent: false,
          uncertain: false,
        };
      }),
  );
}

/**
 * Updates or deletes the copy at `copy.url` (decision 0028), under the same timeout and with the same
 * outcomes as a send; the outcome's url is the copy's.
 */
export function callFollowUp(
  syndicator: SyndicatorPlugin,
  operation: FollowUp,
  properties: PostProperties,
  publication: Publication,
  copy: {
    url: string;
    idempotencyKey: string;
    timeoutMs: number;
    words?: PreviewOptions | undefined;
    sentPhotos?: CopyChangeOptions["sentPhotos"];
    thread?: ThreadPost[];
    sentKey?: string;
    saveThread?: (posts: ThreadPost[]) => Promise<void>;
  },
): Promise<SyndicatorOutcome> {
  return settleWithin(syndicator, copy.timeoutMs, async (signal): Promise<SyndicatorOutcome> => {
    const options = {
      url: copy.url,
      idempotencyKey: copy.idempotencyKey,
      signal,
      ...(copy.thread ? { threadPosts: copy.thread } : {}),
      ...(copy.sentKey ? { sentKey: copy.sentKey } : {}),
      ...(copy.saveThread ? { saveThread: copy.saveThread } : {}),
    };
    if (operation === "update") {
      if (!syndicator.update) throw new Error(`${syndicator.info.name} cannot edit its copies`);
      await syndicator.update(properties, publication, {
        ...options,
        ...told(copy.words),
        ...(copy.sentPhotos === undefined ? {} : { sentPhotos: copy.sentPhotos }),
      });
    } else {
      if (!syndicator.delete) throw new Error(`${syndicator.info.name} cannot delete its copies`);
      await syndicator.delete(properties, publication, options);
    }
    return { ok: true, url: copy.url };
  });
}

/**
 * Replaces the copy at `copy.url` with the post as it is now (decision 0062), under the same timeout
 * and outcomes as a send; the outcome's url is the new copy's.
 */
export function callReplace(
  syndicator: SyndicatorPlugin,
  properties: PostProperties,
  publication: Publication,
  copy: {
    url: string;
    idempotencyKey: string;
    timeoutMs: number;
    thread?: ThreadPost[];
    words?: PreviewOptions | undefined;
    /** Told the new copy's posts. */
    saveThread: (posts: ThreadPost[]) => Promise<void>;
  },
): Promise<SyndicatorOutcome> {
  return settleWithin(syndicator, copy.timeoutMs, async (signal): Promise<SyndicatorOutcome> => {
    if (!syndicator.replace) throw new Error(`${syndicator.info.name} cannot replace its copies`);
    const returned = await syndicator.replace(properties, publication, {
      url: copy.url,
      idempotencyKey: copy.idempotencyKey,
      signal,
      ...(copy.thread ? { threadPosts: copy.thread } : {}),
      ...told(copy.words),
      saveThread: copy.saveThread,
    });
    const parsed = copyUrl.safeParse(returned);
    if (parsed.success) return { ok: true, url: parsed.data };
    return {
      ok: false,
      error: `${syndicator.info.name} returned no URL for the new copy`,
      permanent: false,
      uncertain: true,
    };
  });
}

/**
 * Runs `work` with an AbortSignal that fires after `timeoutMs`; whatever it does, settles within
 * the timeout with an outcome and never rejects.
 */
async function settleWithin(
  syndicator: SyndicatorPlugin,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<SyndicatorOutcome>,
): Promise<SyndicatorOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<SyndicatorOutcome>((resolve) => {
    timer = setTimeout(() => {
      const message = `${syndicator.info.name} did not answer within ${seconds(timeoutMs)}`;
      // Resolved before the abort, so the timeout wins the race even if the syndicator rejects
      // synchronously on abort.
      resolve({ ok: false, error: message, permanent: false, uncertain: true });
      controller.abort(new Error(message));
    }, timeoutMs);
  });
  // Promise.resolve().then also turns a synchronous throw into an outcome.
  const called = Promise.resolve()
    .then(() => work(controller.signal))
    .catch((error: unknown): SyndicatorOutcome => ({ ok: false, ...failureOf(error) }));
  try {
    return await Promise.race([called, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
