// The set-up the tests of Mastodon threads through the syndication core share (decisions 0062, 0066):
// a Mastodon sandbox, a syndicator sending long posts as threads of statuses of LIMIT characters, and
// the core over an engine's database, both telling time by one clock the tests move forward. Each
// test starts in a new 30-minute window, so the sandbox's deletion limit and its faults start afresh.
import { beforeEach } from "node:test";
import { type MastodonSandbox, startMastodonSandbox } from "../../dev/sandbox/mastodon-server.ts";
import { MastodonSyndicator } from "../../src/syndicators/mastodon/index.ts";
import type { Engine } from "../helpers/databases.ts";
import { startedForTheBlock } from "../helpers/started-for-the-block.ts";
import { openSyndication, type SyndicationFixture } from "../syndication/syndication-fixture.ts";

/** A status's room: a post of a few paragraphs takes several. */
const LIMIT = 120;
const WINDOW_MS = 31 * 60 * 1000;

export interface MastodonThreadWorld {
  readonly sandbox: MastodonSandbox;
  readonly mastodon: MastodonSyndicator;
  readonly fixture: SyndicationFixture<MastodonSyndicator>;
  /** The clock the sandbox and the core read. */
  now(): number;
  /** Moves that clock forward. */
  advance(ms: number): void;
}

/** Call inside a describe block; `targetTimeoutMs` bounds each send (a lost answer waits that long). */
export function mastodonThreadWorld(
  engine: Engine,
  { targetTimeoutMs, deletionLimit }: { targetTimeoutMs: number; deletionLimit?: number },
): MastodonThreadWorld {
  let offsetMs = 0;
  const now = () => Date.now() + offsetMs;
  const running = startedForTheBlock(
    "mastodonThreadWorld",
    async () => {
      const sandbox = await startMastodonSandbox({
        accessToken: "token",
        now,
        ...(deletionLimit === undefined ? {} : { deletionLimit }),
      });
      const mastodon = new MastodonSyndicator({
        url: sandbox.url,
        user: "demo",
        accessToken: "token",
        characterLimit: LIMIT,
        thread: true,
        includeCategories: false,
      });
      const fixture = await openSyndication(engine, [mastodon], {
        targetTimeoutMs,
        clock: now,
        retry: { baseMs: 1, maxMs: 1 },
      });
      return { sandbox, mastodon, fixture };
    },
    async ({ sandbox, fixture }) => {
      await fixture.close();
      await sandbox.close();
    },
  );
  beforeEach(() => {
    running().sandbox.clearBehaviour();
    offsetMs += WINDOW_MS;
  });
  return {
    get sandbox() {
      return running().sandbox;
    },
    get mastodon() {
      return running().mastodon;
    },
    get fixture() {
      return running().fixture;
    },
    now,
    advance: (ms) => {
      offsetMs += ms;
    },
  };
}
