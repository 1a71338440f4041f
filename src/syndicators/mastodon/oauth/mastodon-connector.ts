// Connecting a Mastodon account, from the instance the owner types to a verified token: the steps
// of the web flow (begin, then finish at the callback) and of the command line's out-of-band flow,
// with the one application per (instance, redirect URI, scopes) they share. A new application is
// registered only when there is none for that key, or once when the instance no longer knows the
// stored one (invalid_client): never in a loop.
import type { AccountInput } from "../../../contract/accounts.ts";
import { softwareLabel } from "../mastodon-software.ts";
import { parseInstanceAddress } from "./mastodon-instance-address.ts";
import {
  type ConnectedAccount,
  type InstanceOAuth,
  type MastodonOAuthClient,
  MastodonOAuthError,
  newPkce,
  type RegisteredApp,
} from "./mastodon-oauth-client.ts";
import { appKeyOf, type MastodonApps, type MastodonConnectStates } from "./mastodon-oauth-store.ts";

export interface Connection {
  instance: InstanceOAuth;
  account: ConnectedAccount;
  accessToken: string;
  /** The scopes the token holds. */
  scope: string;
  /** The application the token belongs to: kept with the account, to revoke the token later. */
  app: RegisteredApp;
}

export class MastodonConnector {
  constructor(
    private readonly client: MastodonOAuthClient,
    private readonly apps: MastodonApps,
  ) {}

  /**
   * The application for this instance and redirect URI: the stored one while the instance knows
   * it, else one registered now. A stored app the instance refuses (invalid_client) is forgotten
   * and replaced once; the new one is used as it is.
   */
  async appFor(instance: InstanceOAuth, redirectUri: string): Promise<RegisteredApp> {
    const key = appKeyOf(instance, redirectUri);
    const stored = await this.apps.find(key);
    if (stored) {
      if (await this.client.appIsKnown(instance, stored)) return stored;
      await this.apps.forget(key, stored);
    }
    return this.apps.keep(key, await this.client.registerApp(instance, redirectUri));
  }

  /** The instance's OAuth server, from what the owner typed. */
  discover(typed: string): Promise<InstanceOAuth> {
    return this.client.discover(parseInstanceAddress(typed).origin);
  }

  /** Web flow, first half: where to send the browser, with a state bound to the session. */
  async begin(
    typed: string,
    fields: { redirectUri: string; sessionId: string; states: MastodonConnectStates; lang?: string },
  ): Promise<URL> {
    const instance = await this.discover(typed);
    const app = await this.appFor(instance, fields.redirectUri);
    const pkce = instance.pkce ? await newPkce() : undefined;
    const state = await fields.states.create(fields.sessionId, {
      instance,
      redirectUri: fields.redirectUri,
      ...(pkce ? { codeVerifier: pkce.verifier } : {}),
    });
    return this.client.authorizeUrl(instance, app, {
      redirectUri: fields.redirectUri,
      state,
      ...(pkce ? { codeChallenge: pkce.challenge } : {}),
      ...(fields.lang ? { lang: fields.lang } : {}),
    });
  }

  /**
   * Exchanges a code for a token and reads whose it is. The stored app is the one the code was
   * issued to; an instance that refuses it (invalid_client) makes it forgotten, so the next
   * connection registers a new one.
   */
  async finish(fields: {
    instance: InstanceOAuth;
    redirectUri: string;
    codeVerifier?: string;
    callback: URLSearchParams;
  }): Promise<Connection> {
    const { instance, redirectUri } = fields;
    const key = appKeyOf(instance, redirectUri);
    const app = await this.apps.find(key);
    if (!app)
      throw new MastodonOAuthError(
        "invalid-client",
        `${instance.origin}: possekit's application for this instance is gone; connect again`,
      );
    const callback = this.client.codeFrom(instance, app, fields.callback);
    let token: { accessToken: string; scope: string };
    try {
      token = await this.client.exchangeCode(instance, app, {
        callback,
        redirectUri,
        ...(fields.codeVerifier ? { codeVerifier: fields.codeVerifier } : {}),
      });
    } catch (error) {
      if (error instanceof MastodonOAuthError && error.kind === "invalid-client")
        await this.apps.forget(key, app);
      throw error;
    }
    const account = await this.client.verifyCredentials(instance, token.accessToken);
    return { instance, account, accessToken: token.accessToken, scope: token.scope, app };
  }
}

/**
 * What is stored of a connection: the instance, the account and the software found there (options),
 * what the page shows, and, sealed, the token with the application that can revoke it.
 */
export function accountToStore({ instance, account, accessToken, app }: Connection): AccountInput {
  const software = instance.software ?? "mastodon";
  return {
    type: "mastodon",
    options: { url: instance.origin, user: account.username, software },
    display: {
      name: account.handle,
      url: account.url,
      instance: new URL(instance.origin).host,
      software: softwareLabel[software],
    },
    secrets: { accessToken, clientId: app.clientId, clientSecret: app.clientSecret },
  };
}
