// LinkedIn's access tokens last 60 days and, for apps outside its partner programmes, cannot be
// refreshed (learn.microsoft.com/linkedin/shared/authentication/programmatic-refresh-tokens): the
// member must allow again. So the owner is told, by themselves, 10 days and 1 day before a connected
// account's token ends, with the link that reconnects it. Each warning goes once per token (a table
// remembers it, across restarts and instances); a server that was down past the 10-day mark sends
// only the nearer one.
import type { AccountNotice } from "../../../contract/account-flow.ts";
import type { Accounts, ConnectedAccount } from "../../../contract/accounts.ts";
import type { Migration, Queryable } from "../../../contract/database.ts";

export const linkedinWarningMigrations: Migration[] = [
  {
    id: "syndicator-linkedin/002-token-warnings",
    sql: `
CREATE TABLE linkedin_token_warnings (
  target_uid text NOT NULL,
  expires_at timestamptz NOT NULL,
  days_before integer NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (target_uid, expires_at, days_before)
);`,
  },
];

/** Days before the end when the owner is warned, the nearest last. */
export const WARNING_DAYS = [10, 1] as const;
const dayMs = 24 * 60 * 60 * 1000;
/** How often the accounts are looked at: a warning is at most this late. */
export const WATCH_PERIOD_MS = 60 * 60 * 1000;

export interface TokenWatchDeps {
  database: Queryable;
  accounts: Pick<Accounts, "list">;
  now: () => number;
  accountsUrl: string;
  notify(notice: AccountNotice): void;
}

const endOf = (account: ConnectedAccount): number | undefined => {
  const value = account.options.tokenExpiresAt;
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** Sends the warnings now due; how many were sent. */
export async function warnOfEndingTokens(deps: TokenWatchDeps): Promise<number> {
  const now = deps.now();
  let sent = 0;
  for (const account of await deps.accounts.list()) {
    const end = account.type === "linkedin" ? endOf(account) : undefined;
    if (end === undefined || now >= end) continue;
    const due = WARNING_DAYS.filter((days) => now >= end - days * dayMs);
    const nearest = due.at(-1);
    if (nearest === undefined) continue;
    let fresh = false;
    for (const days of due) {
      const { rows } = await deps.database.query(
        `INSERT INTO linkedin_token_warnings (target_uid, expires_at, days_before, sent_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING days_before`,
        [account.uid, new Date(end), days, new Date(now)],
      );
      if (days === nearest && rows.length === 1) fresh = true;
    }
    if (!fresh) continue;
    const name = account.display.name;
    const when = new Date(end)
      .toISOString()
      .replace(/\.\d+Z$/, " UTC")
      .replace("T", " ");
    const left = nearest === 1 ? "1 day" : `${nearest} days`;
    const reconnect = `${deps.accountsUrl}?reconnect=${encodeURIComponent(account.id)}#accounts-linkedin`;
    deps.notify({
      targetUid: account.uid,
      targetName: `${name} on LinkedIn`,
      subject: `${name} on LinkedIn: the access token ends in ${left}`,
      text: [
        `The LinkedIn access token of ${name} ends on ${when}. LinkedIn gives tokens 60 days and no refresh: after that, posts for this account wait until it is connected again.`,
        `Reconnect it (Connect with LinkedIn, then Allow): ${reconnect}`,
      ].join("\n\n"),
    });
    sent += 1;
  }
  return sent;
}

/** Looks now and then every hour on the given clock; returns what stops it. */
export function watchLinkedinTokens(
  deps: TokenWatchDeps & {
    every: (ms: number, tick: () => void) => () => void;
    onError(error: unknown): void;
  },
): () => void {
  const look = () => {
    void warnOfEndingTokens(deps).catch(deps.onError);
  };
  look();
  return deps.every(WATCH_PERIOD_MS, look);
}
