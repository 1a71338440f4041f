// What the plug-in hands the Notifications page: the notifier, the channels saved from the page, the
// environment's (shown as managed there), and the rules a test is sent under.
import type { OutgoingFetchPolicy } from "../net/safe-fetch.ts";
import type { NotificationSettings } from "./notification-settings.ts";
import type { Notifier } from "./notifier.ts";
import type { NotificationSettingsStore } from "./settings-store.ts";

export interface Notifications {
  notifier: Notifier;
  store: NotificationSettingsStore;
  /** The channels set by NOTIFY_* variables: they win, and the page cannot change them. */
  environment: NotificationSettings;
  /** The webhook's outgoing-fetch rules (fetch.allowPrivate). */
  fetchPolicy: OutgoingFetchPolicy;
  /** The syndication page, named in every message. */
  pageUrl: string;
}
