// The status page (spec §5 rule 1): the tokens this server knows of grouped by client (grant) with a
// way to revoke each grant, a form that makes a token with the scopes and lifetime the owner chooses,
// installed plug-ins and targets. Seeing the page makes no token: a token exists only when the owner
// asks for one, and it is shown once, in the answer to that request. Only a signed-in session may
// see or use the page: a token of any scope must never yield a fresh, broader, longer one.
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { z } from "zod";
import { badRequest, forbidden } from "../../contract/http-error.ts";
import type { KnownToken, TokenRegistry } from "../auth/token-registry.ts";
import { MAX_TOKEN_LIFETIME_DAYS } from "../auth/token-signer.ts";
import { setFlash } from "../flash.ts";
import type { GrantStore } from "../indieauth/grant-store.ts";
import { SUPPORTED_SCOPES } from "../indieauth/scopes.ts";
import type { RunningHost } from "../running-host.ts";

const revokeSchema = z.object({ id: z.string().min(1).max(200) });

/** The lifetimes the form offers, in days; the configured default is always among them. */
const LIFETIME_CHOICES = [1, 7, 30, 90, 365];
/** What the form starts with: enough to post and edit, nothing that removes anything. */
const DEFAULT_SCOPES = ["create", "update"];

export function lifetimeChoices(defaultDays: number): number[] {
  const days = new Set([...LIFETIME_CHOICES, defaultDays]);
  return [...days].filter((d) => d >= 1 && d <= MAX_TOKEN_LIFETIME_DAYS).sort((a, b) => a - b);
}

/** A form field that a browser sends once per ticked box: absent, one value or several. */
const ticked = z.preprocess(
  (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]),
  z.array(z.string().max(20)).max(SUPPORTED_SCOPES.length * 2),
);

function newTokenSchema(choices: number[]) {
  return z.object({
    scope: ticked.pipe(
      z
        .array(z.enum(SUPPORTED_SCOPES))
        .min(1)
        .transform((scopes) => SUPPORTED_SCOPES.filter((scope) => scopes.includes(scope))),
    ),
    days: z.coerce
      .number()
      .int()
      .refine((days) => choices.includes(days)),
  });
}

/** Pages that show or change tokens: a signed-in session, never a token. */
export function requireSession(req: Request, _res: Response, next: NextFunction): void {
  if (req.auth?.method === "session") next();
  else next(forbidden("The status page issues and revokes tokens: sign in with the password to use it"));
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  // The answer to "New token" carries a live token: no cache, shared or private, may keep it.
  res.setHeader("Cache-Control", "no-store");
  next();
}

/** A client's grant as the page lists it: its tokens, newest first, revoked together. */
interface ListedGrant {
  id: string;
  clientId: string;
  revokedAt: Date | null;
  tokens: Array<KnownToken & { current: boolean }>;
}

function byGrant(tokens: KnownToken[], newId: string | null): ListedGrant[] {
  const grants = new Map<string, ListedGrant>();
  for (const token of tokens) {
    const grant = grants.get(token.grantId) ?? {
      id: token.grantId,
      clientId: token.clientId,
      revokedAt: null,
      tokens: [],
    };
    grant.tokens.push({ ...token, current: token.id === newId });
    grant.revokedAt ??= token.revokedAt;
    grants.set(token.grantId, grant);
  }
  return [...grants.values()];
}

interface Made {
  token: string;
  id: string;
  scope: string[];
  days: number;
}

export function statusRoutes(host: RunningHost, registry: TokenRegistry, grants: GrantStore): Router {
  const router = express.Router();
  const defaultDays = host.hostConfig.application.tokenLifetimeDays;
  const choices = lifetimeChoices(defaultDays);
  const schema = newTokenSchema(choices);

  const render = async (
    res: Response,
    view: { made?: Made; form?: { scope: string[]; days: number }; formError?: string },
  ) => {
    res.render("status.njk", {
      made: view.made ?? null,
      form: view.form ?? { scope: DEFAULT_SCOPES, days: defaultDays },
      formError: view.formError ?? null,
      scopes: SUPPORTED_SCOPES,
      lifetimeChoices: choices,
      grants: byGrant(await registry.list(), view.made?.id ?? null),
      persistentRevocations: host.database !== null,
      plugins: host.plugins,
      endpoints: host.endpoints,
      syndicators: host.syndicators.map((s) => s.info),
      database: host.database?.engine ?? "none",
      publishing: await host.publishing?.summary(),
    });
  };

  router.get("/", requireSession, noStore, async (_req, res) => {
    await render(res, {});
  });

  router.post("/tokens", requireSession, noStore, async (req, res) => {
    const form = schema.safeParse(req.body ?? {});
    const t = res.locals.t as (key: string, values?: Record<string, unknown>) => string;
    if (!form.success) {
      // The page again, with what was ticked and what to change: never a token.
      const body = (req.body ?? {}) as Record<string, unknown>;
      const sent = ticked.safeParse(body.scope);
      const days = Number(body.days);
      res.status(400);
      await render(res, {
        form: {
          scope: sent.success ? sent.data : [],
          days: choices.includes(days) ? days : defaultDays,
        },
        formError: t("status.newToken.invalid", { choices: choices.join(", ") }),
      });
      return;
    }
    const { scope, days } = form.data;
    const { token, claims } = await host.tokens.mint({
      scope,
      clientId: host.hostConfig.application.url,
      lifetimeDays: days,
    });
    await registry.record(claims);
    res.status(201);
    await render(res, { made: { token, id: claims.id, scope, days }, form: { scope, days } });
  });

  router.post("/tokens/revoke", requireSession, async (req, res) => {
    const form = revokeSchema.safeParse(req.body ?? {});
    if (!form.success) throw badRequest("Name the token to revoke in the form field id");
    // Any token of a grant ends the whole grant: its access tokens here, its refresh token there.
    const grantId = await registry.revoke(form.data.id);
    if (grantId) await grants.revokeGrant(grantId);
    const t = res.locals.t as (key: string, values?: Record<string, unknown>) => string;
    setFlash(
      res,
      grantId
        ? { kind: "success", text: t("status.tokens.revoked", { id: form.data.id }) }
        : { kind: "error", text: t("status.tokens.unknown", { id: form.data.id }) },
    );
    res.redirect(303, "/status");
  });
  return router;
}
