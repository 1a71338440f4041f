// How far a thread got (decision 0055): the posts of it already on the service, kept as the send's
// checkpoint (SyndicateOptions.checkpoint) after each one, so that a retry goes on from the first
// post not yet sent and the page can say "2 of 5 sent". Any syndicator that sends a thread post by
// post writes it this way; the host only reads it. Once the whole thread is out, the host keeps its
// posts with the copy (decision 0062), so that an edit or a deletion reaches every one of them.
import { z } from "zod";

/** One post of a thread on the service. */
export interface ThreadPost {
  /** Its id there (a Mastodon status id, a Bluesky at:// URI). */
  id: string;
  url: string;
  /**
   * A digest of what it holds (threadPostDigest), so that an edit sends only the posts it changes.
   * Absent: not known (a thread found on the service rather than recorded), taken as changed.
   */
  digest?: string | undefined;
  /**
   * An edit is appending a reply to this post (the thread's last) and its answer has not come yet
   * (decision 0066): kept before the request, so that a later edit or deletion first finds the
   * status it may have made.
   */
  appending?: AppendingReply | undefined;
}

/** A status being appended to a thread: what was sent, so that it can be found or asked for again. */
export interface AppendingReply {
  /** The Idempotency-Key it was sent with. */
  key: string;
  /** Its text as sent. */
  text: string;
  /** When it was sent (ISO 8601), by possekit's clock. */
  at: string;
}

export interface ThreadProgress {
  /** How many posts the thread has. */
  total: number;
  /** The posts sent so far, in order: their ids on the service, their URLs, what they hold. */
  sent: ThreadPost[];
}

export const threadPostSchema = z.object({
  id: z.string().min(1),
  url: z.string().min(1),
  digest: z.string().min(1).optional(),
  appending: z.object({ key: z.string().min(1), text: z.string(), at: z.string().min(1) }).optional(),
});

const schema = z.object({
  thread: z.object({ total: z.number().int().positive(), sent: z.array(threadPostSchema) }),
});

/** The progress in a checkpoint, or undefined when it holds none (another kind, or nothing). */
export function readThreadProgress(checkpoint: string | null | undefined): ThreadProgress | undefined {
  if (!checkpoint) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(checkpoint));
    return parsed.success ? parsed.data.thread : undefined;
  } catch {
    return undefined;
  }
}

export function writeThreadProgress(progress: ThreadProgress): string {
  return JSON.stringify({ thread: progress });
}

/** The posts of a thread sent whole, from its last checkpoint; undefined for anything else. */
export function completedThread(checkpoint: string | null | undefined): ThreadPost[] | undefined {
  const progress = readThreadProgress(checkpoint);
  return progress && progress.sent.length === progress.total ? progress.sent : undefined;
}
