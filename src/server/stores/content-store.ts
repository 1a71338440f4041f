// The content-store port (decision 0032): where a published post goes so that the site shows it. The
// host's post service records a post in the database; a content store makes the site agree with it
// (a page served by possekit, a file in a folder, a commit pushed to the site's repository).
// Another engineer is creating src/contract/; this port moves there with the other ports.
import type { Post } from "../../contract/posts.ts";

/** What a change to the store is made for; names the commit of a git store. */
export type StoreAction = "Create" | "Update" | "Delete" | "Undelete" | "Syndication links";

/** A file the site gets besides posts: an upload through the media endpoint. */
export interface StoreMedia {
  /** The stored file's name (random, with its extension). */
  name: string;
  bytes: Uint8Array;
}

export interface ContentStore {
  readonly type: "pages" | "folder" | "git";
  /** False: drafts are kept back (not written) until they are published. */
  readonly writesDrafts: boolean;
  /**
   * Makes the store show each post as it is now: written or rewritten when published (or a draft,
   * with writesDrafts), removed when deleted. One call is one change of the site (one commit), all
   * or nothing: when it throws, the store is as it was before the call.
   */
  publish(posts: readonly Post[], action: StoreAction): Promise<void>;
  /** The public URL of an uploaded file once the site has it; undefined: possekit serves it. */
  mediaUrl?(name: string): string;
  /** Adds uploaded files to the site (one change). */
  publishMedia?(files: readonly StoreMedia[]): Promise<void>;
  /** At start: finish what a stopped process left (a commit not pushed yet). */
  open?(): Promise<void>;
  /** What the status page shows of the store: what it waits for, its last failure. */
  describe?(): Record<string, unknown>;
}

/** The store refused a change: the Micropub answer names it, and nothing was written. */
export class StoreError extends Error {
  constructor(
    message: string,
    /** What a person can do about it, when the store knows. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "StoreError";
  }

  /** True when possekit recorded the change and retries it in the store by itself. */
  recorded = false;
}
