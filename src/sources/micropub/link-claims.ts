// Who is carrying a post's links to its Micropub server right now. Instances sharing one database
// each learn of the same post (one made the copy and writes back in the background, another's
// turn finds the post owed its links, a third lists it in a poll); if two read the server's post
// before either updates it, both add the same link, and a server that appends what it is given
// (WordPress, Indiekit) shows it twice. So whoever reads and updates a post first claims it in the
// database (migrations.ts, micropub_link_claims), one at a time:
//
// - The claim is one conditional statement: taken when no one holds it, or when its holder's
//   lease has run out (a crashed or hung holder blocks a post for one lease, never for ever).
// - Whoever finds it held leaves the post to the holder and asks it to look again; the holder,
//   before letting go, reads both sides anew for every such ask, so a link that reached the row
//   while it worked is carried at once instead of at the next turn.
// - The holder renews the lease just before sending an update; one whose lease was taken over
//   sends nothing (the new holder reads the server's post afterwards and adds only what it lacks).
// - An embedded database has one process (docs/syndicating.md): the claims it finds from another
//   opening of the folder were left by a process that stopped, and are cleared at its first claim.
//
// The lease is read by the rule every lease of ours follows (src/contract/database-now.ts): the
// database's clock, so that instances whose clocks are a little apart agree on when it lapses, or
// a test's clock when one is given.
//
// @example
//   const claims = new LinkClaims(database, "feed:https://blog.example/feed.xml", 120_000, DATABASE_DECIDES);
//   const claim = await claims.take(url);
//   if (claim) { if (await claim.renew()) await client.update(url, update); await claim.release(); }
import { randomUUID } from "node:crypto";
import type { Database } from "../../contract/database.ts";
import { type DatabaseNow, sqlNow } from "../../contract/database-now.ts";

/** What letting go of a claim found: done, asked to look again meanwhile, or taken over. */
export type ClaimRelease = "released" | "asked-again" | "lost";

export interface HeldClaim {
  /** Extends the lease from now; false when the lease ran out and another took the claim. */
  renew(): Promise<boolean>;
  /**
   * Lets go unless someone asked meanwhile; then the claim stays, the asks forgotten and the lease
   * renewed, and the holder looks again before calling this once more.
   */
  release(): Promise<ClaimRelease>;
  /** Lets go whatever was asked (after a failure: the next turn finds what is owed). */
  drop(): Promise<void>;
}

/** One id per opened database: instances on one PostgreSQL, or successive openings of one folder. */
const openings = new WeakMap<Database, string>();
function openingOf(database: Database): string {
  let id = openings.get(database);
  if (!id) {
    id = randomUUID();
    openings.set(database, id);
  }
  return id;
}

export class LinkClaims {
  readonly #opening: string;
  #staleCleared: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    readonly origin: string,
    /** How long a claim holds without renewal. */
    readonly leaseMs: number,
    /** sqlNow's parameter: a test's time, or null for the database's clock. */
    private readonly now: DatabaseNow,
  ) {
    this.#opening = openingOf(database);
  }

  /** The post's claim, or undefined when another holds it (asked to look again). */
  async take(url: string): Promise<HeldClaim | undefined> {
    await this.#clearStale();
    const holder = randomUUID();
    const now = sqlNow(5);
    const { rows } = await this.database.query<{ holder: string }>(
      `INSERT INTO micropub_link_claims AS c (origin, url, holder, opening, held_until)
       VALUES ($1, $2, $3, $4, ${this.#until(5)})
       ON CONFLICT (origin, url) DO UPDATE SET
         holder = CASE WHEN c.held_until <= ${now} THEN EXCLUDED.holder ELSE c.holder END,
         opening = CASE WHEN c.held_until <= ${now} THEN EXCLUDED.opening ELSE c.opening END,
         held_until = CASE WHEN c.held_until <= ${now} THEN EXCLUDED.held_until ELSE c.held_until END,
         again = c.held_until > ${now}
       RETURNING holder`,
      [this.origin, url, holder, this.#opening, this.now(), this.leaseMs],
    );
    if (rows[0]?.holder !== holder) return undefined;
    return this.#held(url, holder);
  }

  #held(url: string, holder: string): HeldClaim {
    const key = [this.origin, url, holder];
    return {
      renew: async () => {
        const renewed = await this.database.query(
          `UPDATE micropub_link_claims SET held_until = ${this.#until(4)}
            WHERE origin = $1 AND url = $2 AND holder = $3`,
          [...key, this.now(), this.leaseMs],
        );
        return renewed.rowCount === 1;
      },
      release: async () => {
        const released = await this.database.query(
          "DELETE FROM micropub_link_claims WHERE origin = $1 AND url = $2 AND holder = $3 AND NOT again",
          key,
        );
        if (released.rowCount === 1) return "released";
        const kept = await this.database.query(
          `UPDATE micropub_link_claims SET again = false, held_until = ${this.#until(4)}
            WHERE origin = $1 AND url = $2 AND holder = $3`,
          [...key, this.now(), this.leaseMs],
        );
        return kept.rowCount === 1 ? "asked-again" : "lost";
      },
      drop: async () => {
        await this.database.query(
          "DELETE FROM micropub_link_claims WHERE origin = $1 AND url = $2 AND holder = $3",
          key,
        );
      },
    };
  }

  /** SQL for the end of a lease taken now: parameter `$n` is now's (sqlNow), `$n+1` the lease's length. */
  #until(n: number): string {
    return `${sqlNow(n)} + $${n + 1}::float8 * interval '1 millisecond'`;
  }

  /** An embedded database's claims from another opening of its folder: left by a stopped process. */
  #clearStale(): Promise<void> {
    if (this.database.engine !== "pglite") return Promise.resolve();
    this.#staleCleared ??= this.database
      .query("DELETE FROM micropub_link_claims WHERE opening <> $1", [this.#opening])
      .then(
        () => undefined,
        (error: unknown) => {
          this.#staleCleared = undefined;
          throw error;
        },
      );
    return this.#staleCleared;
  }
}
