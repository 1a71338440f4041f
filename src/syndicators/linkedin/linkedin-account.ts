// Connecting a LinkedIn member from the page with a pasted access token (one made with the
// developer portal's token generator), and disconnecting one. GET /v2/userinfo says whose the token
// is before anything is stored: its `sub` makes the person URN
// (learn.microsoft.com/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2).
// Disconnecting revokes the token with POST /oauth/v2/revoke (client_id, client_secret, token) when
// the account keeps the owner's app (the OAuth flow stores `clientId` and `clientSecret`).
import {
  type AccountConnector,
  AccountError,
  type ConnectContext,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { accountRequest } from "../shared/account-fetch.ts";

export const LINKEDIN_API_URL = "https://api.linkedin.com";

/** Where LinkedIn's OAuth pages and endpoints are, for an API at `apiUrl` (a sandbox serves both). */
export function linkedinAuthOrigin(apiUrl: string): string {
  const origin = new URL(apiUrl).origin;
  return origin === LINKEDIN_API_URL ? "https://www.linkedin.com" : origin;
}

export interface LinkedinMember {
  sub: string;
  author: string;
  name: string;
  photo?: string;
}

/** Whose the token is, as LinkedIn says; AccountError when it refuses the token. */
export async function linkedinMember(
  apiUrl: string,
  accessToken: string,
  context: ConnectContext,
): Promise<LinkedinMember> {
  const answer = await accountRequest(`${apiUrl}/v2/userinfo`, context, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (answer.status === 401 || answer.status === 403)
    throw new AccountError(`LinkedIn refused the access token (${answer.status})`, "invalid", "refused", {
      service: "LinkedIn",
    });
  const body = (answer.json ?? {}) as { sub?: unknown; name?: unknown; picture?: unknown };
  if (answer.status !== 200 || typeof body.sub !== "string" || !/^[A-Za-z0-9_-]+$/.test(body.sub))
    throw new AccountError(
      `LinkedIn did not say whose the token is (${answer.status})`,
      "invalid",
      "linkedinUserinfo",
    );
  const name = typeof body.name === "string" && body.name.trim() ? body.name.trim() : body.sub;
  return {
    sub: body.sub,
    author: `urn:li:person:${body.sub}`,
    name,
    ...(typeof body.picture === "string" && body.picture.startsWith("https://")
      ? { photo: body.picture }
      : {}),
  };
}

/** What an account keeps of a member: the syndicator's options and what the page shows. */
export function linkedinAccountFields(member: LinkedinMember, apiUrl: string) {
  return {
    options: { author: member.author, name: member.name, ...(apiUrl === LINKEDIN_API_URL ? {} : { apiUrl }) },
    display: {
      name: member.name,
      ...(member.photo ? { photo: member.photo } : {}),
      instance: "linkedin.com",
    },
  };
}

export function linkedinConnector(apiUrl = LINKEDIN_API_URL): AccountConnector {
  return {
    async connect(fields, context) {
      const accessToken = fields.accessToken ?? "";
      if (accessToken === "") throw new AccountError("accessToken is required", "invalid", "missing");
      const member = await linkedinMember(apiUrl, accessToken, context);
      return { ...linkedinAccountFields(member, apiUrl), secrets: { accessToken } };
    },

    async disconnect(
      account: ConnectedAccount,
      secrets: Readonly<Record<string, string>>,
      context: ConnectContext,
    ): Promise<DisconnectOutcome> {
      const { clientId, clientSecret, accessToken } = secrets;
      if (!clientId || !clientSecret || !accessToken)
        return { revoked: false, byHand: { key: "linkedinApp", params: {} } };
      const api = typeof account.options.apiUrl === "string" ? account.options.apiUrl : apiUrl;
      const answer = await accountRequest(`${linkedinAuthOrigin(api)}/oauth/v2/revoke`, context, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: clientId,
          client_secret: clientSecret,
          token: accessToken,
        }).toString(),
      });
      return answer.status === 200
        ? { revoked: true }
        : { revoked: false, byHand: { key: "linkedinApp", params: {} } };
    },
  };
}

export const linkedinAccount = linkedinConnector();
