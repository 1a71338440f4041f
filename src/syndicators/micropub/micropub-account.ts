// Connecting another site's Micropub endpoint from the page: q=config with the token must answer 200
// (Micropub §3.7.1: a client may query the configuration; the endpoint answers 401 or 403 to a token
// it does not accept, §4.1) before anything is stored. Nothing can be revoked from here: the token
// was made on the other site, where the user revokes it.
import { type AccountConnector, AccountError, type ConnectedAccount } from "../../contract/accounts.ts";
import { micropubHeaders, micropubQueryUrl } from "../../contract/micropub-wire.ts";
import { accountRequest, hostOf } from "../shared/account-fetch.ts";

export const micropubAccount: AccountConnector = {
  async connect(fields, context) {
    const endpoint = fields.micropubEndpoint ?? "";
    const accessToken = fields.accessToken ?? "";
    if (endpoint === "" || accessToken === "")
      throw new AccountError("micropubEndpoint and accessToken are required", "invalid", "missing");
    let url: URL;
    try {
      url = new URL(endpoint);
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("scheme");
    } catch {
      throw new AccountError("micropubEndpoint: not a web address", "invalid", "notAnAddress", {
        field: "micropubEndpoint",
      });
    }
    const answer = await accountRequest(micropubQueryUrl(url.href, { q: "config" }), context, {
      headers: micropubHeaders(accessToken),
    });
    const host = hostOf(url.href);
    if (answer.status === 401 || answer.status === 403)
      throw new AccountError(`${host} refused the access token (${answer.status})`, "invalid", "refused", {
        service: host,
      });
    if (answer.status !== 200)
      throw new AccountError(`${host} did not answer q=config (${answer.status})`, "invalid", "notMicropub", {
        host,
      });
    const name = fields.name?.trim() || host;
    return {
      options: { micropubEndpoint: url.href, name },
      display: { name, url: url.origin, instance: host },
      secrets: { accessToken },
    };
  },

  async disconnect(account: ConnectedAccount) {
    return {
      revoked: false,
      byHand: { key: "micropubToken", params: { host: account.display.instance ?? "" } },
    };
  },
};
