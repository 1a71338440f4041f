// What every route of the endpoint is built from: the endpoint's options, its clock and the parts
// init hands over. A module of its own, types only, so the routes and the page's helpers that take
// it import no router: routes/index.ts imports them all, and a type taken from there closed a circle.
import type { AccountFlow } from "../../contract/account-flow.ts";
import type { Server } from "../../contract/plugin.ts";
import type { Notifications } from "../../notifications/notifications.ts";
import type { FeedSources } from "../../sources/feeds/feed-sources.ts";
import type { MicropubSource } from "../../sources/micropub/micropub-source.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import type { OwnPage } from "../indiekit/own-host.ts";
import type { EndpointOptions } from "../options.ts";

export interface RouteContext {
  mountPath: string;
  /** The account flows whose routes are under {mountPath}/accounts/{type}/. */
  accountFlows: () => readonly AccountFlow[];
  /** The endpoint's clock (tests give theirs). */
  now: () => number;
  options: EndpointOptions;
  syndication: () => Syndication | null;
  /** possekit's host; null before init and under Indiekit, which offers none of its services. */
  server: () => Server | null;
  /** The post sources of the `sources` option (their errors are shown on the page). */
  sources: () => readonly MicropubSource[];
  /** The feeds of the `feeds` option and of the Feeds page; null without a database. */
  feeds: () => FeedSources | null;
  /** The notifier and the Notifications page's settings; null without a database. */
  notifications: () => Notifications | null;
  /** Under Indiekit (init saw a host without possekit's extras): the publication's URL. */
  indiekit: () => { me: string } | null;
  /** Inside Indiekit with a database of its own: what renders the page there. */
  ownPage: () => OwnPage | null;
  /** WEBHOOK_SECRET: the host's secret, or the environment's when the host keeps none (Indiekit). */
  webhookSecret: () => string | undefined;
}
