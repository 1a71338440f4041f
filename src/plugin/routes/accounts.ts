// {mountPath}/accounts: the Accounts page, where the signed-in owner connects and disconnects the
// accounts the copies go to (src/contract/accounts.ts), without a file or a restart. Only a signed-in
// session may use it (its POSTs carry the session's CSRF token, checked by the host): an access
// token of any scope is answered 403, since a token able to connect accounts would be a token able
// to redirect every copy. Connect attempts are rate-limited per session: each one makes requests to
// a service, and a password tried there counts against the user's own sign-in limits.
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import { z } from "zod";
import {
  ACCOUNT_TYPE_NAMES,
  AccountError,
  type Accounts,
  type AccountType,
  type ConnectedAccount,
  NOSTR_DEFAULT_RELAYS,
} from "../../contract/accounts.ts";
import { setFlash } from "../../contract/flash.ts";
import { HttpError } from "../../contract/http-error.ts";
import { prefersHtml } from "../../contract/negotiate.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import type { ThreadOptions } from "../../contract/syndicator.ts";
import { noDatabasePage, pageServices, translatorOf } from "../page/services.ts";
import { ownerActionLimiter } from "./owner-action-limiter.ts";
import type { RouteContext } from "./route-context.ts";

/** Connect and disconnect attempts per session and window. */
export const CONNECT_LIMIT = { windowMs: 15 * 60_000, limit: 20 };

/** How long a service may take to answer a connect or a disconnect. */
const SERVICE_TIMEOUT_MS = 30_000;

export interface AccountsRouteOptions {
  /**
   * Mastodon's OAuth flow: when given, POST /accounts/mastodon/authorize (with `instance`) runs it,
   * and the page shows "Connect with your instance" above the paste-a-token form.
   */
  mastodonAuthorize?: RequestHandler;
}

const text = (max: number) => z.string().trim().max(max).default("");
/** The fields each type's form sends (secrets are never trimmed: a space may be part of one). */
const forms: Record<AccountType, z.ZodType<Record<string, string>>> = {
  mastodon: z.object({ instance: text(253 + 8), accessToken: z.string().max(4096).default("") }),
  bluesky: z.object({
    identifier: text(2048),
    password: z.string().max(1024).default(""),
    confirmed: z.enum(["yes", ""]).default(""),
    entryway: text(2048),
    plcDirectory: text(2048),
  }),
  micropub: z.object({
    micropubEndpoint: text(2048),
    accessToken: z.string().max(4096).default(""),
    name: text(200),
  }),
  "internet-archive": z.object({
    accessKey: z.string().max(1024).default(""),
    secretKey: z.string().max(1024).default(""),
  }),
  linkedin: z.object({ accessToken: z.string().max(4096).default("") }),
  // Connected by OAuth only (…/accounts/threads/authorize): the form takes nothing.
  threads: z.object({}),
  nostr: z.object({
    secretKey: z.string().max(1024).default(""),
    relays: z
      .string()
      .trim()
      .max(20 * 300)
      .default(""),
    viewerUrl: text(2048),
  }),
};
/** What a refused form shows again (never a secret). */
const echoed: Record<AccountType, readonly string[]> = {
  mastodon: ["instance"],
  bluesky: ["identifier", "entryway", "plcDirectory"],
  micropub: ["micropubEndpoint", "name"],
  "internet-archive": [],
  linkedin: [],
  threads: [],
  nostr: ["relays", "viewerUrl"],
};

/** Only the signed-in owner: a bearer token of any scope, or a credential in the query or form, is refused. */
function ownerOnly(req: Request, _res: Response, next: NextFunction): void {
  if (req.auth?.method === "session") next();
  else
    next(
      new HttpError(
        403,
        "forbidden",
        "Accounts are connected only by the signed-in owner on the Accounts page, never with an access token",
      ),
    );
}

function connectLimiter(): RequestHandler {
  return ownerActionLimiter(
    CONNECT_LIMIT,
    (seconds) => `Too many attempts to connect accounts; try again in ${seconds} seconds`,
  );
}

function accountsOf(context: RouteContext, res: Response): Accounts {
  pageServices(context, res);
  const accounts = context.server()?.accounts;
  if (!accounts) throw noDatabasePage(res);
  return accounts;
}

type State = "connected" | "needsReconnect";

interface AccountRow {
  account: ConnectedAccount;
  state: State;
  reason: string | null;
  secretFields: { field: string; setAt: Date }[];
  /** The service's publishing quota, when it reports one and answered in time. */
  quota: { used: number; total: number; hours: number } | null;
  /** Its thread options (decision 0058), where its target can make threads. */
  threads: ThreadOptions | null;
}

/** A thread settings form the page refused: which account's, why, and what was typed. */
interface SettingsRefusal {
  id: string;
  text: string;
  fields: Record<string, string>;
}

/** How long the page waits for a service's quota before it is shown without. */
const QUOTA_TIMEOUT_MS = 5_000;

/** The quota a connected account's target reports now, or null (none, or no answer in time). */
async function quotaOf(syndicators: readonly SyndicatorPlugin[], uid: string): Promise<AccountRow["quota"]> {
  const syndicator = syndicators.find((candidate) => candidate.info.uid === uid);
  if (!syndicator?.publishingQuota) return null;
  try {
    const quota = await syndicator.publishingQuota({ signal: AbortSignal.timeout(QUOTA_TIMEOUT_MS) });
    return { used: quota.used, total: quota.total, hours: Math.round(quota.duration / 3600) };
  } catch {
    return null;
  }
}

/** The page: the targets of the config file, and per type the connected accounts and a form. */
async function renderPage(
  context: RouteContext,
  req: Request,
  res: Response,
  options: AccountsRouteOptions,
  refused?: { type: AccountType; error: AccountError; fields: Record<string, string> },
  settingsRefused?: SettingsRefusal,
): Promise<void> {
  const services = pageServices(context, res);
  const accounts = accountsOf(context, res);
  const t = translatorOf(res);
  const list = await accounts.list();
  const health = new Map((await services.syndication.reads.targets()).map((target) => [target.uid, target]));
  const rows: AccountRow[] = await Promise.all(
    list.map(async (account) => {
      const target = health.get(account.uid);
      const refusedNow = target?.state === "refused";
      const reason = account.needsReconnect?.reason ?? (refusedNow ? (target?.error ?? null) : null);
      return {
        account,
        state: account.needsReconnect || refusedNow ? "needsReconnect" : "connected",
        reason,
        secretFields: Object.entries(account.secretsSetAt).map(([field, setAt]) => ({ field, setAt })),
        quota: await quotaOf(services.syndicators, account.uid),
        threads: threadsOf(services.syndicators, account.uid),
      };
    }),
  );
  // What each account flow shows in its type's section (LinkedIn, Threads: the owner's app entered,
  // the redirect URL to list in it).
  const server = context.server();
  const flows: Record<string, Record<string, unknown>> = {};
  for (const flow of context.accountFlows())
    if (flow.page && server)
      flows[flow.type] = await flow.page({
        server,
        basePath: `${context.mountPath}/accounts/${flow.type}`,
        accountsPath: `${context.mountPath}/accounts`,
      });
  const connectedUids = new Set(list.map((account) => account.uid));
  // The targets the page did not connect: each under its own type (by its plug-in's id), any other
  // kind of syndicator in a section of its own.
  const managedTargets = services.syndicators
    .filter((syndicator) => !connectedUids.has(syndicator.info.uid))
    .map((syndicator) => ({
      uid: syndicator.info.uid,
      name: syndicator.info.name,
      service: syndicator.info.service?.name,
      type: ACCOUNT_TYPE_NAMES.find((type) => syndicator.id === `syndicator-${type}`) ?? null,
      threads: syndicator.threads ?? null,
    }));
  const managed = managedTargets.filter((target) => target.type === null);
  const error = refused
    ? {
        type: refused.type,
        confirm: refused.error.code === "confirm",
        text: refused.error.key
          ? t(`accounts.errors.${refused.error.key}`, refused.error.params)
          : refused.error.message,
      }
    : null;
  // Reconnect: the account's form, filled in with what it was connected with (never a secret).
  const reconnecting = refused ? undefined : list.find((account) => account.id === req.query.reconnect);
  const fields = refused?.fields ?? (reconnecting ? reconnectFields(reconnecting) : {});
  res.status(refused ? (refused.error.code === "managed" ? 409 : 400) : settingsRefused ? 400 : 200);
  res.setHeader("Cache-Control", "no-store");
  res.render("syndicate/accounts.njk", {
    mountPath: context.mountPath,
    types: ACCOUNT_TYPE_NAMES.map((type) => ({
      type,
      accounts: rows.filter((row) => row.account.type === type),
      managed: managedTargets.filter((target) => target.type === type),
    })),
    managed,
    error,
    fields,
    nostrDefaultRelays: NOSTR_DEFAULT_RELAYS,
    filledType: refused?.type ?? reconnecting?.type ?? null,
    settingsError: settingsRefused ?? null,
    threadMaxLimit: PAGE_THREAD_MAX,
    flows,
    // The OAuth flow's routes (account-flows.ts) are mounted before this page's.
    mastodonAuthorize:
      options.mastodonAuthorize !== undefined ||
      context.accountFlows().some((flow) => flow.type === "mastodon"),
  });
}

/** The thread options of the registered target with this uid, where it can make threads. */
function threadsOf(syndicators: readonly SyndicatorPlugin[], uid: string): ThreadOptions | null {
  return syndicators.find((candidate) => candidate.info.uid === uid)?.threads ?? null;
}

/** The non-secret fields an account was connected with, as its form names them. */
function reconnectFields(account: ConnectedAccount): Record<string, string> {
  const option = (name: string) =>
    typeof account.options[name] === "string" ? String(account.options[name]) : "";
  switch (account.type) {
    case "mastodon":
      return { instance: option("url") };
    case "bluesky":
      return { identifier: option("handle") };
    case "micropub":
      return { micropubEndpoint: option("micropubEndpoint"), name: option("name") };
    case "nostr":
      return {
        relays: Array.isArray(account.options.relays) ? account.options.relays.map(String).join("\n") : "",
        viewerUrl: option("viewerUrl"),
      };
    default:
      return {};
  }
}

function connectRoute(
  context: RouteContext,
  type: AccountType,
  options: AccountsRouteOptions,
): RequestHandler {
  return async (req, res) => {
    const accounts = accountsOf(context, res);
    const t = translatorOf(res);
    const parsed = forms[type].safeParse(req.body ?? {});
    if (!parsed.success) {
      const error = new AccountError("The form's fields are not what this page sends", "invalid", "missing");
      return sendRefusal(context, req, res, options, type, error, {});
    }
    const fields = parsed.data;
    const kept = Object.fromEntries(echoed[type].map((field) => [field, fields[field] ?? ""]));
    try {
      const account = await accounts.connect(type, fields, {
        signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
      });
      const text = t("accounts.connected", { name: account.display.name });
      if (!prefersHtml(req)) {
        res
          .status(201)
          .json({ id: account.id, uid: account.uid, type: account.type, name: account.display.name });
        return;
      }
      setFlash(res, { kind: "success", text });
      res.redirect(303, `${context.mountPath}/accounts#account-${account.id}`);
    } catch (error) {
      if (!(error instanceof AccountError)) throw error;
      return sendRefusal(context, req, res, options, type, error, kept);
    }
  };
}

async function sendRefusal(
  context: RouteContext,
  req: Request,
  res: Response,
  options: AccountsRouteOptions,
  type: AccountType,
  error: AccountError,
  fields: Record<string, string>,
): Promise<void> {
  if (!prefersHtml(req)) {
    res.status(error.code === "managed" ? 409 : 400).json({
      error: error.code === "confirm" ? "confirmation_required" : "invalid_request",
      error_description: error.message,
    });
    return;
  }
  await renderPage(context, req, res, options, { type, error, fields });
}

const idSchema = z.string().uuid();

function disconnectRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const accounts = accountsOf(context, res);
    const t = translatorOf(res);
    const id = idSchema.safeParse(req.params.id);
    const outcome = id.success
      ? await accounts.disconnect(id.data, { signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS) })
      : null;
    if (!outcome) throw new HttpError(404, "not_found", t("accounts.unknown"));
    const name = outcome.account.display.name;
    const byHand = outcome.byHand ? t(`accounts.byHand.${outcome.byHand.key}`, outcome.byHand.params) : "";
    const said = [
      t(outcome.revoked ? "accounts.disconnectedRevoked" : "accounts.disconnected", { name }),
      byHand,
    ]
      .filter(Boolean)
      .join(" ");
    if (!prefersHtml(req)) {
      res.json({ uid: outcome.account.uid, revoked: outcome.revoked, by_hand: byHand || null });
      return;
    }
    setFlash(res, { kind: outcome.byHand ? "warning" : "success", text: said });
    res.redirect(303, `${context.mountPath}/accounts`);
  };
}

/** The most posts a thread may have, as the page takes it (the configuration file takes any). */
export const PAGE_THREAD_MAX = 50;

/** The thread settings form: a checkbox sends "on" when ticked and nothing when not. */
const threadForm = z.object({
  thread: z.literal("on").optional(),
  threadMax: z
    .string()
    .trim()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().int().min(2).max(PAGE_THREAD_MAX)),
  threadNumbering: z.literal("on").optional(),
  threadPermalink: z.enum(["first", "last"]),
});

/** Which field of the thread settings form was refused, as a locale key under accounts.thread.invalid. */
function refusedField(issues: readonly { path: readonly PropertyKey[] }[]): string {
  const field = issues[0]?.path[0];
  return field === "threadMax" || field === "threadPermalink" ? field : "form";
}

/** "Long posts": the thread settings of a connected account, saved and in use at once (decision 0058). */
function threadSettingsRoute(context: RouteContext, options: AccountsRouteOptions): RequestHandler {
  return async (req, res) => {
    const accounts = accountsOf(context, res);
    const t = translatorOf(res);
    const id = idSchema.safeParse(req.params.id);
    const account = id.success ? await accounts.get(id.data) : null;
    if (!account || !threadsOf(pageServices(context, res).syndicators, account.uid))
      throw new HttpError(404, "not_found", t("accounts.unknown"));
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = threadForm.safeParse(body);
    if (!parsed.success) {
      const text = t(`accounts.thread.invalid.${refusedField(parsed.error.issues)}`, {
        max: PAGE_THREAD_MAX,
      });
      if (!prefersHtml(req)) {
        res.status(400).json({ error: "invalid_request", error_description: text });
        return;
      }
      const fields = Object.fromEntries(
        ["thread", "threadMax", "threadNumbering", "threadPermalink"].map((name) => [
          name,
          typeof body[name] === "string" ? String(body[name]).slice(0, 20) : "",
        ]),
      );
      await renderPage(context, req, res, options, undefined, { id: account.id, text, fields });
      return;
    }
    const settings: ThreadOptions = {
      thread: parsed.data.thread === "on",
      threadMax: parsed.data.threadMax,
      threadNumbering: parsed.data.threadNumbering === "on",
      threadPermalink: parsed.data.threadPermalink,
    };
    const saved = await accounts.saveSettings(account.id, { ...settings });
    if (!prefersHtml(req)) {
      res.json({ id: saved.id, uid: saved.uid, threads: settings });
      return;
    }
    setFlash(res, { kind: "success", text: t("accounts.thread.saved", { name: saved.display.name }) });
    res.redirect(303, `${context.mountPath}/accounts#account-${saved.id}`);
  };
}

export function accountsRoutes(context: RouteContext, options: AccountsRouteOptions = {}): Router {
  const router = express.Router();
  const limited = connectLimiter();
  router.use("/accounts", ownerOnly);
  router.get("/accounts", (req, res) => renderPage(context, req, res, options));
  if (options.mastodonAuthorize)
    router.post("/accounts/mastodon/authorize", limited, options.mastodonAuthorize);
  for (const type of ACCOUNT_TYPE_NAMES)
    router.post(`/accounts/${type}`, limited, connectRoute(context, type, options));
  router.post("/accounts/:id/disconnect", limited, disconnectRoute(context));
  router.post("/accounts/:id/thread", threadSettingsRoute(context, options));
  return router;
}
