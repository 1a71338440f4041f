// The syndicator's one Bluesky session. Bluesky limits sign-ins (30 per 5 minutes), so one session
// serves every post until it expires; then it is refreshed once, however many posts noticed it.
import { SyndicationError } from "../../contract/syndication-error.ts";
import type { BlueskyApi, BlueskySession } from "./bluesky-api.ts";

/** XRPC errors that mean "sign in again", not "this post was refused". */
const sessionErrors = new Set(["ExpiredToken", "InvalidToken"]);

export const isSessionError = (error: unknown): boolean =>
  error instanceof SyndicationError && sessionErrors.has(error.code ?? "");

export class BlueskySessions {
  #session: Promise<BlueskySession> | undefined;

  constructor(
    private readonly handle: string,
    private readonly password: string,
  ) {}

  /**
   * Runs `work` with a session. When Bluesky says it has expired, the session is renewed once with
   * its refresh token (sign-ins are limited, refreshes are what the official client does), or, when
   * the refresh token has expired too, by signing in again.
   */
  async use<T>(api: BlueskyApi, work: (session: BlueskySession) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.#current(api);
      try {
        return await work(session);
      } catch (error) {
        if (!isSessionError(error) || attempt > 0) throw error;
        this.#renew(api, session);
      }
    }
  }

  /** Replaces an expired session (once, however many posts noticed it) by its refreshed successor. */
  #renew(api: BlueskyApi, expired: BlueskySession): void {
    const current = this.#session;
    if (!current) return;
    const renewing = current.then((session) =>
      session === expired
        ? api.refreshSession(session).catch((error: unknown) => {
            if (isSessionError(error)) return api.createSession(this.handle, this.password);
            throw error;
          })
        : session,
    );
    this.#session = renewing;
    renewing.catch(() => {
      if (this.#session === renewing) this.#session = undefined;
    });
  }

  #current(api: BlueskyApi): Promise<BlueskySession> {
    if (!this.#session) {
      const signingIn = api.createSession(this.handle, this.password);
      this.#session = signingIn;
      // A failed sign-in is not kept: the next post tries again.
      signingIn.catch(() => {
        if (this.#session === signingIn) this.#session = undefined;
      });
    }
    return this.#session;
  }
}
