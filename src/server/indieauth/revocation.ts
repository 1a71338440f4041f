// Revocation (RFC 7009): an access token or a refresh token ends the whole grant it belongs to,
// and a revoked grant stays revoked for as long as any of its tokens could still be shown.
import type { Router } from "express";
import type { IndieAuthServer } from "./indieauth-server.ts";
import { apiResponse, form, oauthError, tokenParameter } from "./oauth-http.ts";

/** Ends a grant: its refresh tokens and every access token it issued. */
export async function revokeGrant({ store, registry }: IndieAuthServer, grantId: string): Promise<void> {
  for (const id of await store.revokeGrant(grantId)) await registry.revoke(id);
}

/** RFC 7009: an access token or a refresh token; either ends the whole grant it belongs to. */
export async function revokeToken(server: IndieAuthServer, body: Record<string, unknown>): Promise<void> {
  const { host, store, registry } = server;
  const request = tokenParameter.safeParse(body);
  if (!request.success) throw oauthError("invalid_request", "token is missing");
  const token = request.data.token;
  const verified = await host.tokens.verify(token);
  if ("claims" in verified) {
    await registry.revoke(verified.claims.id);
    const grantId = await store.grantOf({ accessTokenId: verified.claims.id });
    if (grantId) await revokeGrant(server, grantId);
    return;
  }
  const grantId = await store.grantOf({ refreshToken: token });
  if (grantId) await revokeGrant(server, grantId);
}

export function revocationRoutes(router: Router, server: IndieAuthServer): void {
  router.post("/revoke", apiResponse, async (req, res) => {
    await revokeToken(server, form(req));
    // Unknown tokens too: the answer tells nothing about which tokens exist (RFC 7009 §2.2).
    res.status(200).json({});
  });
}
