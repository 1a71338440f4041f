// Connecting a Threads account is done by OAuth only (oauth/threads-oauth-flow.ts): a token pasted
// in a form would not say when it was issued, nor could it be refreshed by an app the owner set up.
// Disconnecting cannot revoke the token (the Threads API has no revocation endpoint): the owner
// removes the app in Threads (Settings → Account → Website permissions).
import { type AccountConnector, AccountError } from "../../contract/accounts.ts";

export const threadsAccount: AccountConnector = {
  async connect() {
    throw new AccountError(
      "Threads accounts are connected with the Connect with Threads button",
      "invalid",
      "threadsOAuthOnly",
    );
  },
  async disconnect() {
    return { revoked: false, byHand: { key: "threads", params: {} } };
  },
};
