// Connecting a Mastodon account from the page with a pasted access token, and disconnecting one.
// verify_credentials says whose the token is (and that the instance accepts it) before anything is
// stored (docs.joinmastodon.org/methods/accounts/#verify_credentials: 200 with the Account, 401
// when the token is missing, revoked or expired). Disconnecting revokes the token with POST
// /oauth/revoke (docs.joinmastodon.org/methods/oauth/#revoke: client_id, client_secret, token) when
// the account keeps the app that obtained it (the OAuth flow stores `clientId` and `clientSecret`);
// a pasted token's app is the user's own, which only they can delete.
import {
  type AccountConnector,
  AccountError,
  type ConnectContext,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { accountRequest, hostOf, serviceOrigin } from "../shared/account-fetch.ts";
import { detectSoftware, softwareLabel } from "./mastodon-software.ts";

interface VerifiedAccount {
  username?: unknown;
  url?: unknown;
  avatar?: unknown;
  display_name?: unknown;
}

/** Whose the token is, as the instance says; AccountError when it refuses the token. */
export async function verifyMastodonToken(instance: string, accessToken: string, context: ConnectContext) {
  const url = serviceOrigin(instance, "instance");
  const host = hostOf(url);
  const answer = await accountRequest(`${url}/api/v1/accounts/verify_credentials`, context, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  if (answer.status === 401 || answer.status === 403)
    throw new AccountError(`${host} refused the access token (${answer.status})`, "invalid", "refused", {
      service: host,
    });
  const account = (answer.json ?? {}) as VerifiedAccount;
  if (answer.status !== 200 || typeof account.username !== "string" || account.username === "")
    throw new AccountError(
      `${host} did not answer as a Mastodon instance (${answer.status})`,
      "invalid",
      "notMastodon",
      {
        host,
      },
    );
  const user = account.username;
  const software = await detectSoftware(url, async (address) => {
    try {
      const found = await accountRequest(address, context);
      return found.status === 200 ? found.json : undefined;
    } catch {
      return undefined;
    }
  });
  return {
    url,
    user,
    software,
    display: {
      name: `@${user}@${host}`,
      url: typeof account.url === "string" ? account.url : `${url}/@${user}`,
      ...(typeof account.avatar === "string" && account.avatar.startsWith("https://")
        ? { photo: account.avatar }
        : {}),
      instance: host,
      software: softwareLabel[software],
    },
  };
}

export const mastodonAccount: AccountConnector = {
  async connect(fields, context) {
    const instance = fields.instance ?? "";
    const accessToken = fields.accessToken ?? "";
    if (instance === "" || accessToken === "")
      throw new AccountError("instance and accessToken are required", "invalid", "missing");
    const found = await verifyMastodonToken(instance, accessToken, context);
    return {
      options: { url: found.url, user: found.user, software: found.software },
      display: found.display,
      secrets: { accessToken },
    };
  },

  async disconnect(
    account: ConnectedAccount,
    secrets: Readonly<Record<string, string>>,
    context: ConnectContext,
  ): Promise<DisconnectOutcome> {
    const url = String(account.options.url);
    const host = hostOf(url);
    const { clientId, clientSecret, accessToken } = secrets;
    if (!clientId || !clientSecret || !accessToken)
      return { revoked: false, byHand: { key: "mastodonPasted", params: { instance: host } } };
    const answer = await accountRequest(`${url}/oauth/revoke`, context, {
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
      : { revoked: false, byHand: { key: "mastodonApp", params: { instance: host } } };
  },
};
