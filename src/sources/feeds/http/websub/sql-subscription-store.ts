// The WebSub subscriptions in the database (table websub_subscriptions, migrations.ts).
import type { Database } from "../../../../contract/database.ts";
import type { WebSubSubscription, WebSubSubscriptionStore } from "./subscription-store.ts";

export class SqlWebSubSubscriptionStore implements WebSubSubscriptionStore {
  constructor(private readonly database: Database) {}

  async save(subscription: WebSubSubscription): Promise<void> {
    void this.database;
    void subscription;
    throw new Error("not written yet");
  }

  async get(id: string): Promise<WebSubSubscription | undefined> {
    void id;
    throw new Error("not written yet");
  }

  async forFeed(feedKey: string): Promise<WebSubSubscription | undefined> {
    void feedKey;
    throw new Error("not written yet");
  }

  async dueForRenewal(now: number, limit: number): Promise<WebSubSubscription[]> {
    void now;
    void limit;
    throw new Error("not written yet");
  }
}
