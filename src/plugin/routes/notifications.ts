// {mountPath}/notifications: the Notifications page, where the signed-in owner sets where failures
// are told (e-mail over SMTP, a signed webhook), which events go where, and sends a test that shows
// what the SMTP server or the webhook answered. Saved settings take effect at the next message,
// without a restart; a channel set in the environment (NOTIFY_*) is shown as managed there. The SMTP
// password and the webhook's key are sealed at rest and never rendered back. Only a signed-in
// session may use it (its POSTs carry the session's CSRF token, checked by the host): the page
// decides where the server sends mail and requests, which no access token may.
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
import { prefersHtml } from "../../contract/negotiate.ts";
import { privateAddressOf } from "../../net/private-host.ts";
import {
  effectiveSettings,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
} from "../../notifications/notification-settings.ts";
import type { Notifications } from "../../notifications/notifications.ts";
import {
  type Channel,
  type SecretChange,
  withoutPassword,
  withPassword,
} from "../../notifications/settings-store.ts";
import {
  checkSmtpServer,
  sendTestEmail,
  sendTestWebhook,
  testMessage,
} from "../../notifications/test-message.ts";
import { noDatabasePage, pageServices, translatorOf } from "../page/services.ts";
import { ownerActionLimiter } from "./owner-action-limiter.ts";
import type { RouteContext } from "./route-context.ts";

/** Saves and tests per session and window: each one connects to a server the owner named. */
export const NOTIFICATIONS_LIMIT = { windowMs: 15 * 60_000, limit: 30 };

/** The webhook's signing key: as long as the environment's NOTIFY_WEBHOOK_SECRET must be. */
const MIN_WEBHOOK_SECRET = 16;

const text = (max: number) => z.string().trim().max(max).default("");
/** A checkbox group: absent, one value, or several. */
const eventList = z
  .union([z.string(), z.array(z.string())])
  .default([])
  .transform((value) => (Array.isArray(value) ? value : [value]))
  .pipe(z.array(z.enum(NOTIFICATION_EVENTS as [NotificationEvent, ...NotificationEvent[]])));
/** Secrets are never trimmed: a space may be part of one. */
const emailForm = z.object({
  smtpUrl: text(2048),
  smtpPassword: z.string().max(1024).default(""),
  forgetPassword: z.enum(["yes", ""]).default(""),
  from: text(320),
  to: text(2048),
  events: eventList,
});
const webhookForm = z.object({
  url: text(2048),
  secret: z.string().max(1024).default(""),
  events: eventList,
});
const testForm = z.object({ channel: z.enum(["email", "webhook"]) });
const address = z.email();

/** A refusal of a form: the message's key and values, the field it is about, what to show again. */
interface Refusal {
  channel: Channel;
  key: string;
  params?: Record<string, string>;
  fields: Record<string, unknown>;
}

class FormRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.key);
  }
}

function ownerOnly(req: Request, _res: Response, next: NextFunction): void {
  if (req.auth?.method === "session") next();
  else
    next(
      new HttpError(
        403,
        "forbidden",
        "Notifications are set only by the signed-in owner on the Notifications page, never with an access token",
      ),
    );
}

function limiter(): RequestHandler {
  return ownerActionLimiter(
    NOTIFICATIONS_LIMIT,
    (seconds) => `Too many saves and tests of notifications; try again in ${seconds} seconds`,
  );
}

function notificationsOf(context: RouteContext, res: Response): Notifications {
  pageServices(context, res);
  const notifications = context.notifications();
  if (!notifications?.store.available) throw noDatabasePage(res);
  return notifications;
}

const allEvents = () => [...NOTIFICATION_EVENTS];

async function renderPage(context: RouteContext, res: Response, refused?: Refusal): Promise<void> {
  const notifications = notificationsOf(context, res);
  const t = translatorOf(res);
  const { environment, store } = notifications;
  const saved = await store.saved();
  const fieldsOf = (channel: Channel) => (refused?.channel === channel ? refused.fields : null);
  res.status(refused ? 400 : 200);
  res.setHeader("Cache-Control", "no-store");
  res.render("syndicate/notifications.njk", {
    mountPath: context.mountPath,
    events: NOTIFICATION_EVENTS,
    off: !(environment.email || saved.email) && !(environment.webhook || saved.webhook),
    error: refused
      ? { channel: refused.channel, text: t(`notifications.errors.${refused.key}`, refused.params) }
      : null,
    email: environment.email
      ? {
          managed: true,
          smtpUrl: withoutPassword(environment.email.smtpUrl).url,
          from: environment.email.from,
          to: environment.email.to.join(", "),
          events: [...environment.email.events],
        }
      : {
          managed: false,
          saved: saved.email !== null,
          passwordSetAt: saved.email?.secretSetAt ?? null,
          fields: fieldsOf("email") ?? {
            smtpUrl: saved.email?.settings.smtpUrl ?? "",
            from: saved.email?.settings.from ?? "",
            to: saved.email?.settings.to.join(", ") ?? "",
            events: saved.email?.settings.events ?? allEvents(),
          },
        },
    webhook: environment.webhook
      ? { managed: true, url: environment.webhook.url, events: [...environment.webhook.events] }
      : {
          managed: false,
          saved: saved.webhook !== null,
          secretSetAt: saved.webhook?.secretSetAt ?? null,
          fields: fieldsOf("webhook") ?? {
            url: saved.webhook?.settings.url ?? "",
            events: saved.webhook?.settings.events ?? allEvents(),
          },
        },
  });
}

/** Refused input: the page again with the message beside the form (400), or JSON for an API client. */
async function refuse(context: RouteContext, req: Request, res: Response, refusal: Refusal): Promise<void> {
  if (!prefersHtml(req)) {
    res.status(400).json({
      error: "invalid_request",
      error_description: translatorOf(res)(`notifications.errors.${refusal.key}`, refusal.params),
    });
    return;
  }
  await renderPage(context, res, refusal);
}

function done(context: RouteContext, req: Request, res: Response, key: string, channel: Channel): void {
  const said = translatorOf(res)(key);
  if (!prefersHtml(req)) {
    res.json({ channel, saved: said });
    return;
  }
  setFlash(res, { kind: "success", text: said });
  res.redirect(303, `${context.mountPath}/notifications#${channel}`);
}

function managedRefusal(channel: Channel): Refusal {
  return { channel, key: channel === "email" ? "emailManaged" : "webhookManaged", fields: {} };
}

function saveEmailRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const notifications = notificationsOf(context, res);
    const form = emailForm.safeParse(req.body ?? {});
    if (!form.success) return refuse(context, req, res, { channel: "email", key: "form", fields: {} });
    const fields = form.data;
    // Shown again when refused: never the password, in its field or in the URL.
    const echoed = {
      smtpUrl: URL.canParse(fields.smtpUrl) ? withoutPassword(fields.smtpUrl).url : fields.smtpUrl,
      from: fields.from,
      to: fields.to,
      events: fields.events,
    };
    const fail = (key: string, params?: Record<string, string>) => {
      throw new FormRefused({ channel: "email", key, ...(params ? { params } : {}), fields: echoed });
    };
    try {
      if (notifications.environment.email) throw new FormRefused(managedRefusal("email"));
      if (
        !URL.canParse(fields.smtpUrl) ||
        !/^smtps?:$/.test(new URL(fields.smtpUrl).protocol) ||
        !new URL(fields.smtpUrl).hostname
      )
        fail("smtpUrl");
      const recipients = fields.to
        .split(",")
        .map((one) => one.trim())
        .filter(Boolean);
      if (recipients.length === 0) fail("toMissing");
      for (const one of recipients) if (!address.safeParse(one).success) fail("to", { address: one });
      const from =
        fields.from || `possekit@${new URL(context.server()?.publication.me ?? "http://localhost").hostname}`;
      if (!address.safeParse(from).success) fail("from", { address: from });
      if (fields.events.length === 0) fail("noEvents");
      const { url, password: inUrl } = withoutPassword(fields.smtpUrl);
      const saved = await notifications.store.saved();
      const kept = (await notifications.store.settings()).email;
      // A new password (typed, or in the URL) replaces the saved one; none keeps it, unless forgotten.
      const typed = fields.smtpPassword || inUrl;
      const change: SecretChange = typed
        ? { replace: typed }
        : fields.forgetPassword === "yes" || !saved.email?.secretSetAt
          ? { forget: true }
          : { keep: true };
      const password =
        "replace" in change
          ? change.replace
          : "keep" in change && kept
            ? withoutPassword(kept.smtpUrl).password
            : null;
      // Nothing is saved unless the server answers and takes the login.
      const check = await checkSmtpServer(withPassword(url, password));
      if (!check.ok) fail("smtpNoAnswer", { url, answer: check.answer });
      await notifications.store.save(
        "email",
        { smtpUrl: url, from, to: recipients, events: fields.events },
        change,
      );
    } catch (error) {
      if (error instanceof FormRefused) return refuse(context, req, res, error.refusal);
      throw error;
    }
    done(context, req, res, "notifications.emailSaved", "email");
  };
}

function saveWebhookRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const notifications = notificationsOf(context, res);
    const form = webhookForm.safeParse(req.body ?? {});
    if (!form.success) return refuse(context, req, res, { channel: "webhook", key: "form", fields: {} });
    const fields = form.data;
    const echoed = { url: fields.url, events: fields.events };
    const fail = (key: string, params?: Record<string, string>) => {
      throw new FormRefused({ channel: "webhook", key, ...(params ? { params } : {}), fields: echoed });
    };
    try {
      if (notifications.environment.webhook) throw new FormRefused(managedRefusal("webhook"));
      if (!URL.canParse(fields.url) || !/^https?:$/.test(new URL(fields.url).protocol)) fail("webhookUrl");
      const url = new URL(fields.url);
      if (url.username || url.password) fail("webhookUrl");
      if (!notifications.fetchPolicy.allowPrivate) {
        const found = await privateAddressOf(url);
        if (found) fail("webhookPrivate", { url: url.href, address: found });
      }
      const saved = await notifications.store.saved();
      if (fields.secret && fields.secret.length < MIN_WEBHOOK_SECRET)
        fail("webhookSecret", { min: String(MIN_WEBHOOK_SECRET) });
      if (!fields.secret && !saved.webhook?.secretSetAt)
        fail("webhookSecret", { min: String(MIN_WEBHOOK_SECRET) });
      if (fields.events.length === 0) fail("noEvents");
      await notifications.store.save(
        "webhook",
        { url: url.href, events: fields.events },
        fields.secret ? { replace: fields.secret } : { keep: true },
      );
    } catch (error) {
      if (error instanceof FormRefused) return refuse(context, req, res, error.refusal);
      throw error;
    }
    done(context, req, res, "notifications.webhookSaved", "webhook");
  };
}

function offRoute(context: RouteContext, channel: Channel): RequestHandler {
  return async (req, res) => {
    const notifications = notificationsOf(context, res);
    if (notifications.environment[channel]) return refuse(context, req, res, managedRefusal(channel));
    await notifications.store.remove(channel);
    done(
      context,
      req,
      res,
      channel === "email" ? "notifications.emailOff" : "notifications.webhookOff",
      channel,
    );
  };
}

/** Sends a test by the channel as it is in effect now, and shows exactly what the other side answered. */
function testRoute(context: RouteContext): RequestHandler {
  return async (req, res) => {
    const notifications = notificationsOf(context, res);
    const t = translatorOf(res);
    const form = testForm.safeParse(req.body ?? {});
    if (!form.success) throw new HttpError(400, "invalid_request", t("notifications.errors.form"));
    const { channel } = form.data;
    const settings = effectiveSettings(notifications.environment, await notifications.store.settings());
    const message = testMessage(notifications.pageUrl, new Date(context.now()));
    const email = settings.email;
    const webhook = settings.webhook;
    const answer =
      channel === "email"
        ? email
          ? await sendTestEmail(email, message)
          : null
        : webhook
          ? await sendTestWebhook(webhook, message, notifications.fetchPolicy)
          : null;
    if (!answer) return refuse(context, req, res, { channel, key: "nothingToTest", fields: {} });
    const where = channel === "email" ? withoutPassword(email?.smtpUrl ?? "").url : (webhook?.url ?? "");
    const key = `notifications.test.${channel}${answer.ok ? "Answered" : "Failed"}`;
    const said = t(key, { url: where, answer: answer.answer });
    if (!prefersHtml(req)) {
      res.status(answer.ok ? 200 : 502).json({ channel, ok: answer.ok, answer: answer.answer });
      return;
    }
    setFlash(res, { kind: answer.ok ? "success" : "error", text: said });
    res.redirect(303, `${context.mountPath}/notifications#${channel}`);
  };
}

export function notificationsRoutes(context: RouteContext): Router {
  const router = express.Router();
  const limited = limiter();
  router.use("/notifications", ownerOnly);
  router.get("/notifications", (_req, res) => renderPage(context, res));
  router.post("/notifications/email", limited, saveEmailRoute(context));
  router.post("/notifications/webhook", limited, saveWebhookRoute(context));
  router.post("/notifications/email/off", offRoute(context, "email"));
  router.post("/notifications/webhook/off", offRoute(context, "webhook"));
  router.post("/notifications/test", limited, testRoute(context));
  return router;
}
