// {mountPath}/feeds: the Feeds page (decision 0054), where the signed-in owner adds a site's feed
// by pasting its home page or feed address, chooses its targets with checkboxes and its options
// with their defaults explained, changes them, and removes the feed, without a file or a restart.
//
//   GET  {mountPath}/feeds                 every feed: the configuration file's (read-only) and the page's
//   POST {mountPath}/feeds/discover        what the address holds: each feed found, its format, title,
//                                          newest entries and WebSub hub, and the form to add one
//   POST {mountPath}/feeds                 adds a feed (read at once: its first read sends nothing)
//   POST {mountPath}/feeds/<id>            changes a page feed's targets and options
//   POST {mountPath}/feeds/<id>/remove     removes a page feed: unsubscribed from its hub, never renewed
//
// A feed's site with a Micropub endpoint of its own gets the copies' links written back there (the
// `micropub` option): its endpoint is typed on the form, never on a private address unless
// fetch.allowPrivate, and its token is sealed at rest and never shown again (page-feed-store.ts).
//
// Only a signed-in session (CSRF-checked by the host) may use it, as on the Accounts page: a feed
// decides what is posted to the owner's accounts. Discovering and adding fetch a stranger's
// address: through the feeds' fetch rules (never a private address) and rate-limited per session.
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import { z } from "zod";
import { setFlash } from "../../contract/flash.ts";
import { HttpError } from "../../contract/http-error.ts";
import type { Translate } from "../../contract/i18n.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import { privateAddressOf } from "../../net/private-host.ts";
import type { DiscoveredFeed, Discovery } from "../../sources/feeds/discover-feeds.ts";
import {
  DEFAULT_FEED_POLL_SECONDS,
  DEFAULT_MAX_ENTRIES,
  type FeedOptions,
  feedKeyOf,
  feedOptionsSchema,
  MAX_BACKFILL,
} from "../../sources/feeds/feed-options.ts";
import type { FeedSources } from "../../sources/feeds/feed-sources.ts";
import { PageFeedStore, type TokenChange } from "../../sources/feeds/page-feed-store.ts";
import { feedIdOf, feedPostsHref } from "../page/feed-view.ts";
import { noDatabasePage, type PageServices, pageServices, translatorOf } from "../page/services.ts";
import { ownerActionLimiter } from "./owner-action-limiter.ts";
import type { RouteContext } from "./route-context.ts";

/** Discover and add attempts per session and window: each one fetches a stranger's address. */
export const FEED_LOOKUP_LIMIT = { windowMs: 15 * 60_000, limit: 30 };

/** How long a discovery may take in all (each fetch has its own, shorter limit). */
const DISCOVERY_TIMEOUT_MS = 45_000;

/** Only the signed-in owner: a bearer token of any scope is refused (403). */
function ownerOnly(req: Request, res: Response, next: NextFunction): void {
  if (req.auth?.method === "session") next();
  else next(new HttpError(403, "forbidden", translatorOf(res)("feedsPage.errors.ownerOnly")));
}

function lookupLimiter(): RequestHandler {
  return ownerActionLimiter(FEED_LOOKUP_LIMIT, (seconds, res) =>
    translatorOf(res)("feedsPage.errors.tooMany", { seconds }),
  );
}

interface Running {
  services: PageServices;
  feeds: FeedSources;
  store: PageFeedStore;
  t: Translate;
}

function running(context: RouteContext, res: Response): Running {
  const services = pageServices(context, res);
  const feeds = context.feeds();
  const database = services.server.database;
  if (!feeds || !database) throw noDatabasePage(res);
  const sealer = () => services.server.secretSealer ?? null;
  return { services, feeds, store: new PageFeedStore(database, sealer), t: translatorOf(res) };
}

/** A form field that may come once, many times (checkboxes) or not at all. */
const many = z.preprocess(
  (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
  z.array(z.string().max(2048)).max(200),
);
const field = (max: number) => z.string().trim().max(max).default("");
const urlForm = z.object({ url: field(2048) });
const optionsForm = z.object({
  url: field(2048),
  targets: many,
  backfill: field(10),
  pollSeconds: field(10),
  maxEntries: field(10),
  categories: field(2000),
  /** The site's Micropub endpoint: the copies' links are written back there. Empty: none. */
  micropubEndpoint: field(2048),
  /** Its token; empty keeps the saved one. Never shown again. */
  micropubToken: field(4096),
  /** "yes": the saved token is forgotten, and links are no longer written back. */
  forgetMicropubToken: z.literal("yes").optional(),
});
type OptionsFields = z.output<typeof optionsForm>;

/** The form as shown again after a refusal: never the token typed. */
const shownAgain = (fields: OptionsFields): OptionsFields => ({ ...fields, micropubToken: "" });

/** What a refused form shows again, and why (the field the message is about, when one). */
interface Refusal {
  status: number;
  text: string;
  field?: string;
}

interface PageState {
  /** The address typed into the add form, shown again. */
  url?: string;
  discovery?: { url: string; feeds: DiscoveredFeed[] };
  /** The options form as sent, shown again after a refusal. */
  fields?: OptionsFields;
  refusal?: Refusal & { form: "discover" | "add" | "edit"; feedId?: string };
}

const asNumber = (value: string) => (value === "" ? undefined : Number(value));

/** The form as the `feeds` option would hold it, checked by the same schema as the configuration file. */
function feedOptionsOf(
  fields: OptionsFields,
  installed: ReadonlySet<string>,
  t: Translate,
): { options: FeedOptions } | { refusal: Refusal } {
  if (fields.targets.length === 0)
    return { refusal: { status: 400, field: "targets", text: t("feedsPage.errors.noTarget") } };
  const unknown = fields.targets.find((uid) => !installed.has(uid));
  if (unknown !== undefined)
    return {
      refusal: { status: 400, field: "targets", text: t("feedsPage.errors.unknownTarget", { uid: unknown }) },
    };
  const categories = fields.categories
    .split(",")
    .map((category) => category.trim())
    .filter(Boolean);
  const writesBack = fields.micropubEndpoint !== "" && fields.forgetMicropubToken !== "yes";
  const parsed = feedOptionsSchema.safeParse({
    url: fields.url,
    targets: fields.targets,
    ...(categories.length > 0 ? { categories } : {}),
    ...(fields.backfill !== "" ? { backfill: asNumber(fields.backfill) } : {}),
    ...(fields.pollSeconds !== "" ? { pollSeconds: asNumber(fields.pollSeconds) } : {}),
    ...(fields.maxEntries !== "" ? { maxEntries: asNumber(fields.maxEntries) } : {}),
    ...(writesBack ? { micropub: { endpoint: fields.micropubEndpoint } } : {}),
  });
  if (parsed.success) return { options: parsed.data };
  const path = parsed.error.issues[0]?.path ?? [];
  const name = path[0] === "micropub" ? "micropubEndpoint" : String(path[0] ?? "url");
  const known = ["url", "backfill", "pollSeconds", "maxEntries", "categories", "micropubEndpoint"].includes(
    name,
  )
    ? name
    : "url";
  return { refusal: { status: 400, field: known, text: t(`feedsPage.errors.field.${known}`, LIMITS) } };
}

/** The form checked whole: the options and what becomes of the token, or the first refusal. */
async function checkedForm(
  fields: OptionsFields,
  savedToken: Date | null,
  services: PageServices,
  t: Translate,
): Promise<{ options: FeedOptions; token: TokenChange } | { refusal: Refusal }> {
  const installed = new Set(services.syndicators.map((syndicator) => syndicator.info.uid));
  const checked = feedOptionsOf(fields, installed, t);
  if ("refusal" in checked) return checked;
  const allowPrivate = services.server.config.fetch.allowPrivate;
  const token = await tokenChangeOf(fields, checked.options, savedToken, allowPrivate, t);
  return "refusal" in token ? token : { options: checked.options, token: token.change };
}

/**
 * What the save does with the feed's Micropub token (a page feed's token lives in its own sealed
 * column, never in the options), or why it cannot: an endpoint needs a token, given now or saved
 * before; a token needs an endpoint; an endpoint on a private address needs fetch.allowPrivate.
 */
async function tokenChangeOf(
  fields: OptionsFields,
  options: FeedOptions,
  saved: Date | null,
  allowPrivate: boolean,
  t: Translate,
): Promise<{ change: TokenChange } | { refusal: Refusal }> {
  const endpoint = options.micropub?.endpoint;
  if (!endpoint) {
    if (fields.micropubToken !== "" && fields.forgetMicropubToken !== "yes")
      return {
        refusal: { status: 400, field: "micropubEndpoint", text: t("feedsPage.errors.tokenWithoutEndpoint") },
      };
    return { change: { forget: true } };
  }
  if (!allowPrivate) {
    const address = await privateAddressOf(new URL(endpoint));
    if (address)
      return {
        refusal: {
          status: 400,
          field: "micropubEndpoint",
          text: t("feedsPage.errors.micropubPrivate", { url: endpoint, address }),
        },
      };
  }
  if (fields.micropubToken !== "") return { change: { replace: fields.micropubToken } };
  if (saved) return { change: { keep: true } };
  return {
    refusal: { status: 400, field: "micropubToken", text: t("feedsPage.errors.noToken", { url: endpoint }) },
  };
}

/**
 * A feed's options as an API client is answered: a page feed's write-back names its endpoint only
 * (its token is saved apart, and `tokenEnv` is the configuration file's, not read here).
 */
function shownOptions(options: FeedOptions): Record<string, unknown> {
  const { micropub, ...rest } = options;
  return micropub ? { ...rest, micropub: { endpoint: micropub.endpoint } } : rest;
}

const LIMITS = {
  maxBackfill: MAX_BACKFILL,
  defaultPoll: DEFAULT_FEED_POLL_SECONDS,
  defaultMax: DEFAULT_MAX_ENTRIES,
};

/** Why nothing was found at the address, in the reader's words, with the site's own words after. */
function discoveryRefusal(
  found: Extract<Discovery, { kind: "refused" }>,
  url: string,
  t: Translate,
): Refusal {
  const status = found.reason === "private-address" || found.reason === "invalid-url" ? 400 : 422;
  const text = t(`feedsPage.errors.discovery.${found.reason}`, { url });
  return { status, field: "url", text: found.detail ? `${text} (${found.detail})` : text };
}

async function renderPage(
  context: RouteContext,
  _req: Request,
  res: Response,
  state: PageState = {},
): Promise<void> {
  const { services, feeds, store } = running(context, res);
  const { mountPath, syndicators } = services;
  const onPage = new Map((await store.list()).map((feed) => [feed.key, feed]));
  const nameOf = (uid: string) => syndicators.find((s) => s.info.uid === uid)?.info.name ?? uid;
  const installed = new Set(syndicators.map((syndicator) => syndicator.info.uid));
  const rows = await Promise.all(
    feeds.feeds.map(async (feed) => {
      const report = await feed.report();
      const id = feedIdOf(feed.key);
      const fromPage = onPage.get(feed.key);
      // The configuration file wins a URL both name: such a page feed shows as the file's.
      const managed = !fromPage || JSON.stringify(fromPage.options) !== JSON.stringify(feed.feed);
      return {
        id,
        key: feed.key,
        url: report.url,
        state: report.state,
        lastError: report.lastError,
        entriesKnown: report.entriesKnown,
        postsHref: feedPostsHref(feed, mountPath),
        managed,
        options: feed.feed,
        targetNames: feed.feed.targets.map(nameOf),
        missingTargets: feed.feed.targets.filter((uid) => !installed.has(uid)),
        categories: (feed.feed.categories ?? []).join(", "),
        micropubEndpoint: feed.feed.micropub?.endpoint ?? "",
        // Only when it was saved: the token itself is never read for the page.
        micropubTokenSetAt: fromPage?.micropubTokenSetAt ?? null,
      };
    }),
  );
  const refusal = state.refusal;
  res.status(refusal?.status ?? 200);
  res.setHeader("Cache-Control", "no-store");
  res.render("syndicate/feeds.njk", {
    mountPath,
    feedsList: rows,
    targets: syndicators.map((syndicator) => ({
      uid: syndicator.info.uid,
      name: syndicator.info.name,
      service: syndicator.info.service?.name ?? null,
    })),
    discovery: state.discovery ?? null,
    addUrl: state.url ?? state.discovery?.url ?? "",
    fields: state.fields ?? null,
    discoverError: refusal?.form === "discover" ? refusal.text : null,
    addError: refusal?.form === "add" ? refusal.text : null,
    editError: refusal?.form === "edit" ? { feedId: refusal.feedId, text: refusal.text } : null,
    limits: { ...LIMITS, minPoll: 60, maxPoll: 86_400, minMax: MAX_BACKFILL, maxMax: 5000 },
    accountsHref: services.server.accounts ? `${mountPath}/accounts` : null,
  });
}

/** A refusal: JSON for an API client, else the page again with the message beside its form. */
async function refuse(
  context: RouteContext,
  req: Request,
  res: Response,
  refusal: Refusal,
  state: PageState,
  form: "discover" | "add" | "edit",
  feedId?: string,
): Promise<void> {
  if (!prefersHtml(req)) {
    res.status(refusal.status).json({
      error: refusal.status === 409 ? "conflict" : "invalid_request",
      error_description: refusal.text,
    });
    return;
  }
  await renderPage(context, req, res, {
    ...state,
    refusal: { ...refusal, form, ...(feedId ? { feedId } : {}) },
  });
}

function discoverRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const { feeds, t } = running(context, res);
    const { url } = urlForm.parse(req.body ?? {});
    if (!url)
      return refuse(
        context,
        req,
        res,
        { status: 400, field: "url", text: t("feedsPage.errors.noUrl") },
        {},
        "discover",
      );
    const found = await feeds.discover(url, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS));
    if (found.kind === "refused")
      return refuse(context, req, res, discoveryRefusal(found, url, t), { url }, "discover");
    if (!prefersHtml(req)) {
      res.json({
        feeds: found.feeds.map((feed) => ({
          url: feed.url,
          format: feed.format,
          title: feed.title,
          entries: feed.entryCount,
          newest: feed.newest.map((entry) => ({
            ...entry,
            published: entry.published?.toISOString() ?? null,
          })),
          hub: feed.hub,
        })),
      });
      return;
    }
    await renderPage(context, req, res, { discovery: { url, feeds: found.feeds } });
  };
}

function addRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const { services, feeds, store, t } = running(context, res);
    const parsed = optionsForm.safeParse(req.body ?? {});
    if (!parsed.success)
      return refuse(context, req, res, { status: 400, text: t("feedsPage.errors.form") }, {}, "add");
    const fields = parsed.data;
    const checked = await checkedForm(fields, null, services, t);
    // The options are checked before anything is fetched; the feed is read before anything is saved.
    const again = async (refusal: Refusal, discovery?: PageState["discovery"]) =>
      refuse(
        context,
        req,
        res,
        refusal,
        { url: fields.url, fields: shownAgain(fields), ...(discovery ? { discovery } : {}) },
        "add",
      );
    if ("refusal" in checked) {
      const found = fields.url
        ? await feeds.discover(fields.url, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS))
        : null;
      return again(
        checked.refusal,
        found?.kind === "found" ? { url: fields.url, feeds: found.feeds } : undefined,
      );
    }
    const options = checked.options;
    const key = feedKeyOf(options.url);
    if (feeds.find(key))
      return again({
        status: 409,
        field: "url",
        text: t((await store.find(key)) ? "feedsPage.errors.onPageAlready" : "feedsPage.errors.managed", {
          url: options.url,
        }),
      });
    const found = await feeds.discover(options.url, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS));
    if (found.kind === "refused") return again(discoveryRefusal(found, options.url, t));
    // The address must be a feed itself, not a page that names some: the user picks one of those.
    const feed = found.feeds.find((candidate) => candidate.asked || feedKeyOf(candidate.url) === key);
    if (!feed)
      return again(
        { status: 422, field: "url", text: t("feedsPage.errors.pickOne", { url: options.url }) },
        { url: options.url, feeds: found.feeds },
      );
    if (!(await store.add(options, context.now(), checked.token)))
      return again({
        status: 409,
        field: "url",
        text: t("feedsPage.errors.onPageAlready", { url: options.url }),
      });
    await feeds.refresh();
    const source = feeds.find(key);
    // Read at once: what is there now is known, so that only what comes later is sent.
    const summary = source ? await source.fetchNow() : null;
    const report = source ? await source.report() : null;
    const known = report?.entriesKnown ?? 0;
    const sent = summary?.recorded.sent ?? 0;
    const read =
      summary?.outcome === "fetched"
        ? sent > 0
          ? t("feedsPage.added.backfilled", { count: known, sent })
          : t("feedsPage.added.nothingSent", { count: known })
        : t("feedsPage.added.notReadYet", { error: report?.lastError ?? "" });
    const text = `${t("feedsPage.added.title", { url: options.url })} ${read}`;
    if (!prefersHtml(req)) {
      res.status(201).json({
        id: feedIdOf(key),
        url: options.url,
        options: shownOptions(options),
        read: summary,
        message: text,
      });
      return;
    }
    setFlash(res, {
      kind: summary?.outcome === "fetched" ? "success" : "warning",
      text,
      ...(source
        ? {
            link: { href: feedPostsHref(source, services.mountPath), text: t("syndicate.feeds.showEntries") },
          }
        : {}),
    });
    res.redirect(303, `${services.mountPath}/feeds#feed-${feedIdOf(key)}`);
  };
}

/** The page feed the path names: 404 when none, 409 for a feed of the configuration file. */
async function pageFeedOf(context: RouteContext, req: Request, running: Running) {
  const { feeds, store, t } = running;
  const id = String(req.params.id);
  const feed = feeds.feeds.find((candidate) => feedIdOf(candidate.key) === id);
  const stored = feed
    ? await store.find(feed.key)
    : (await store.list()).find((candidate) => feedIdOf(candidate.key) === id);
  if (!stored) {
    if (feed) throw new HttpError(409, "conflict", t("feedsPage.errors.managed", { url: feed.key }));
    throw new HttpError(404, "not_found", t("syndicate.feeds.notFound"));
  }
  if (context.options.feeds.some((configured) => feedKeyOf(configured.url) === stored.key))
    throw new HttpError(409, "conflict", t("feedsPage.errors.managed", { url: stored.key }));
  return { id, stored };
}

function editRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const state = running(context, res);
    const { services, feeds, store, t } = state;
    const { id, stored } = await pageFeedOf(context, req, state);
    const parsed = optionsForm.safeParse(req.body ?? {});
    if (!parsed.success)
      return refuse(context, req, res, { status: 400, text: t("feedsPage.errors.form") }, {}, "edit", id);
    // The address stays: another address is another feed (remove this one, add that one).
    const fields = { ...parsed.data, url: stored.options.url };
    const checked = await checkedForm(fields, stored.micropubTokenSetAt, services, t);
    if ("refusal" in checked)
      return refuse(context, req, res, checked.refusal, { fields: shownAgain(parsed.data) }, "edit", id);
    await store.update(stored.key, checked.options, context.now(), checked.token);
    await feeds.refresh();
    const text = t("feedsPage.saved", { url: stored.options.url });
    if (!prefersHtml(req)) {
      res.json({ id, url: stored.options.url, options: shownOptions(checked.options), message: text });
      return;
    }
    setFlash(res, { kind: "success", text });
    res.redirect(303, `${services.mountPath}/feeds#feed-${id}`);
  };
}

function removeRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const state = running(context, res);
    const { services, feeds, store, t } = state;
    const { stored } = await pageFeedOf(context, req, state);
    await store.remove(stored.key);
    // Its subscription is ended at its hub before the answer (and at the next turn if the hub failed).
    await feeds.refresh();
    const text = t("feedsPage.removed", { url: stored.options.url });
    if (!prefersHtml(req)) {
      res.json({ url: stored.options.url, message: text });
      return;
    }
    setFlash(res, { kind: "success", text });
    res.redirect(303, `${services.mountPath}/feeds`);
  };
}

export function feedsPageRoutes(context: RouteContext): Router {
  const router = express.Router();
  const limited = lookupLimiter();
  router.get("/feeds", ownerOnly, (req, res) => renderPage(context, req, res));
  router.post("/feeds/discover", ownerOnly, limited, discoverRoute(context));
  router.post("/feeds", ownerOnly, limited, addRoute(context));
  router.post("/feeds/:id", ownerOnly, editRoute(context));
  router.post("/feeds/:id/remove", ownerOnly, removeRoute(context));
  return router;
}
