// The status page (spec §5 rule 1): an access token to copy, the tokens this server knows of grouped
// by client (grant) with a way to revoke each grant, installed plug-ins and targets. It mints a token, so only the signed-in user
// may see it: a token of any scope must never yield a fresh, broader, longer one.
import { createHash } from "node:crypto";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { z } from "zod";
import { badRequest, forbidden } from "../../contract/http-error.ts";
import type { KnownToken, TokenRegistry } from "../auth/token-registry.ts";
import { setFlash } from "../flash.ts";
import type { GrantStore } from "../indieauth/grant-store.ts";
import type { RunningHost } from "../running-host.ts";

const STATUS_SCOPE = ["create", "update"];
const revokeSchema = z.object({ id: z.string().min(1).max(200) });

/** Pages that show or change tokens: a signed-in session, never a token. */
export function requireSession(req: Request, _res: Response, next: NextFunction): void {
  if (req.auth?.method === "session") next();
  else next(forbidden("The status page issues and revokes tokens: sign in with the password to use it"));
}

/**
 * One token per session: every view of the page shows the same id, so the list of tokens grows
 * with sign-ins, not with page views. The id is a hash of the session's own id, which it reveals
 * nothing of.
 */
function statusTokenId(credentialId: string): string {
  return createHash("sha256").update(`status-page:${credentialId}`).digest("base64url").slice(0, 22);
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  // The page carries a live token: no cache, shared or private, may keep it.
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

function byGrant(tokens: KnownToken[], currentId: string): ListedGrant[] {
  const grants = new Map<string, ListedGrant>();
  for (const token of tokens) {
    const grant = grants.get(token.grantId) ?? {
      id: token.grantId,
      clientId: token.clientId,
      revokedAt: null,
      tokens: [],
    };
    grant.tokens.push({ ...token, current: token.id === currentId });
    grant.revokedAt ??= token.revokedAt;
    grants.set(token.grantId, grant);
  }
  return [...grants.values()];
}

export function statusRoutes(host: RunningHost, registry: TokenRegistry, grants: GrantStore): Router {
  const router = express.Router();
  const lifetimeDays = host.hostConfig.application.tokenLifetimeDays;

  router.get("/", requireSession, noStore, async (req, res) => {
    const auth = req.auth;
    if (!auth) throw forbidden("Sign in first");
    const id = statusTokenId(auth.credentialId);
    const clientId = host.hostConfig.application.url;
    const { token, claims } = await host.tokens.mint({ scope: STATUS_SCOPE, clientId, lifetimeDays, id });
    await registry.record(claims);
    res.render("status.njk", {
      token,
      tokenLifetimeDays: lifetimeDays,
      grants: byGrant(await registry.list(), id),
      persistentRevocations: host.database !== null,
      plugins: host.plugins,
      endpoints: host.endpoints,
      syndicators: host.syndicators.map((s) => s.info),
      database: host.database?.engine ?? "none",
      publishing: await host.publishing?.summary(),
    });
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
