// The pages store, the embedded default: possekit itself serves each published post at its URL
// (routes in pages-routes.ts), so a post is live the moment it is recorded. Nothing to write.
import type { ContentStore } from "./content-store.ts";

export class PagesStore implements ContentStore {
  readonly type = "pages";
  /** Drafts are not shown: a draft's URL answers 404 until it is published. */
  readonly writesDrafts = false;

  async publish(): Promise<void> {}

  describe(): Record<string, unknown> {
    return { type: this.type };
  }
}
