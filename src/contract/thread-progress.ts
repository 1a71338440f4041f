// How far a thread got (decision 0055): the posts of it already on the service, kept as the send's
// checkpoint (SyndicateOptions.checkpoint) after each one, so that a retry goes on from the first
// post not yet sent and the page can say "2 of 5 sent". Any syndicator that sends a thread post by
// post writes it this way; the host only reads it.
import { z } from "zod";

export interface ThreadProgress {
  /** How many posts the thread has. */
  total: number;
  /** The posts sent so far, in order: their ids on the service and their URLs. */
  sent: { id: string; url: string }[];
}

const schema = z.object({
  thread: z.object({
    total: z.number().int().positive(),
    sent: z.array(z.object({ id: z.string().min(1), url: z.string().min(1) })),
  }),
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
