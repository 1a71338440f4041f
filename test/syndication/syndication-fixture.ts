// A migrated, empty database with the post service and the syndication core on it, and in-test
// targets: SyndicatorPlugin objects standing in for external services (the HTTP fakes of the real
// syndicators are tested with those syndicators).

import type { Database } from "../../src/contract/database.ts";
import type { SyndicatorPlugin } from "../../src/contract/plugin.ts";
import type { Post } from "../../src/contract/posts.ts";
import type {
  CopyPreview,
  PostProperties,
  Publication,
  SyndicateOptions,
} from "../../src/contract/syndicator.ts";
import { migrate } from "../../src/server/database/migrate.ts";
import { createLogger } from "../../src/server/logger.ts";
import { postMigrations } from "../../src/server/posts/migrations.ts";
import { createPostService } from "../../src/server/posts/post-service.ts";
import type { PostService } from "../../src/server/posts/post-service-interface.ts";
import { syndicationMigrations } from "../../src/syndication/migrations.ts";
import type { BatchRun } from "../../src/syndication/runs/batch.ts";
import { Syndication, type SyndicationOptions } from "../../src/syndication/syndication.ts";
import type { PostResult, RunSummary } from "../../src/syndication/types.ts";
import { TestClock } from "../helpers/clock.ts";
import type { Engine } from "../helpers/databases.ts";

export const publication: Publication = {
  me: "https://example.org/",
  postUrlPattern: "{me}notes/{slug}/",
  timezone: "UTC",
  name: "Example",
};

export const silent = createLogger("silent");

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export interface Call {
  postUrl: string;
  idempotencyKey: string;
  /** The user's own words, when the post has some for this target. */
  text?: string;
  /** The user's thread choice, when the post has one for this target. */
  thread?: boolean;
  signal: AbortSignal;
  resumeFrom?: string;
  checkpoint?(value: string): Promise<void>;
}

type Behaviour = (call: Call, count: number) => Promise<string> | string;

/** A target that records every call and answers as told (by default: a copy URL at once). */
export class TestTarget implements SyndicatorPlugin {
  readonly id: string;
  readonly name: string;
  readonly meta = {};
  readonly info: { uid: string; name: string };
  readonly calls: Call[] = [];
  honoursIdempotencyKey: boolean;
  timeoutMs?: number;
  behaviour: Behaviour;
  /** Resolved at each call, then replaced: await it to know the target is being sent to. */
  called: Deferred<Call> = deferred<Call>();

  constructor(
    uid: string,
    options: { name?: string; behaviour?: Behaviour; idempotent?: boolean; timeoutMs?: number } = {},
  ) {
    this.id = `test-${uid}`;
    this.name = options.name ?? uid;
    this.info = { uid, name: options.name ?? `Target ${uid}` };
    this.behaviour = options.behaviour ?? ((call, count) => copyUrl(uid, call.postUrl, count));
    this.honoursIdempotencyKey = options.idempotent ?? false;
    if (options.timeoutMs !== undefined) this.timeoutMs = options.timeoutMs;
  }

  init(): void {}

  async syndicate(properties: PostProperties, _publication: Publication, options: SyndicateOptions) {
    const call: Call = { postUrl: String(properties.url), ...options };
    this.calls.push(call);
    const called = this.called;
    this.called = deferred<Call>();
    called.resolve(call);
    return this.behaviour(call, this.calls.length);
  }

  /** Calls for one post. */
  callsFor(postUrl: string): Call[] {
    return this.calls.filter((call) => call.postUrl === postUrl);
  }
}

export function copyUrl(uid: string, postUrl: string, count: number): string {
  return `${uid}/copies/${count}?of=${encodeURIComponent(postUrl)}`;
}

/** A behaviour that waits for `gate` before answering. */
export function gated(gate: Promise<void>, uid: string): Behaviour {
  return async (call, count) => {
    await gate;
    return copyUrl(uid, call.postUrl, count);
  };
}

export interface SyndicationFixture<Target extends SyndicatorPlugin = TestTarget> {
  database: Database;
  posts: PostService;
  /** How many times posts.update was called, per post URL. */
  updates: Map<string, number>;
  targets: Target[];
  syndication: Syndication;
  /** The instances' clock where the core decides time itself (a batch's page going stale). */
  clock: TestClock;
  /**
   * Another instance (another process, as far as the database can tell) on the same database, or,
   * given `through`, on that database as another wrapper of it (one that counts or refuses statements).
   */
  instance(options?: SyndicationOptions, through?: Database): Syndication;
  createPost(published: string, targets: string[], extra?: Record<string, unknown>): Promise<Post>;
  close(): Promise<void>;
}

/** Test targets by default; real syndicators pointed at fakes work too. */
export async function openSyndication<Target extends SyndicatorPlugin = TestTarget>(
  engine: Engine,
  targets: Target[],
  options: SyndicationOptions = {},
): Promise<SyndicationFixture<Target>> {
  const database = await engine.open();
  await migrate(database, [...postMigrations, ...syndicationMigrations]);
  const real = createPostService(database, publication);
  const updates = new Map<string, number>();
  // The real service, counting updates so that a test can see a post written once.
  const posts: PostService = {
    ...real,
    update(url, update) {
      updates.set(url, (updates.get(url) ?? 0) + 1);
      return real.update(url, update);
    },
    updateAlongside(url, update, alongside) {
      updates.set(url, (updates.get(url) ?? 0) + 1);
      return real.updateAlongside(url, update, alongside);
    },
  };
  const instances: Syndication[] = [];
  const clock = new TestClock();
  const instance = (extra: SyndicationOptions = {}, through: Database = database) => {
    const created = new Syndication({
      database: through,
      posts,
      syndicators: () => targets,
      publication,
      logger: silent,
      // Long enough that a target held at a gate never times out on a loaded machine.
      options: { targetTimeoutMs: 30_000, clock: clock.now, ...options, ...extra },
    });
    instances.push(created);
    return created;
  };
  const syndication = instance();
  let slug = 0;
  return {
    database,
    posts,
    updates,
    targets,
    syndication,
    clock,
    instance,
    createPost(published, uids, extra = {}) {
      slug += 1;
      return real.create({
        properties: { content: `Post ${slug}`, published, "mp-syndicate-to": uids, ...extra },
        slug: `post-${slug}`,
      });
    },
    async close() {
      await Promise.all(instances.map((each) => each.runs.shutdown()));
      await database.close();
    },
  };
}

/** Reads every result of a run, then its summary. */
export async function collect(run: BatchRun): Promise<{ results: PostResult[]; summary: RunSummary }> {
  const results: PostResult[] = [];
  for await (const result of run.results) results.push(result);
  return { results, summary: await run.done };
}

/** The ledger row's raw state, for assertions. */
export async function ledgerRow(database: Database, postId: string, uid: string) {
  const { rows } = await database.query<{
    state: string;
    attempts: number;
    next_attempt_at: Date | null;
    permanent: boolean;
    last_error: string | null;
    url: string | null;
    idempotency_key: string;
  }>(
    `SELECT state, attempts, next_attempt_at, permanent, last_error, url, idempotency_key
       FROM syndication_targets WHERE post_id = $1::bigint AND target_uid = $2`,
    [postId, uid],
  );
  return rows[0];
}

/** A preview of the post's content as it stands, for test targets whose copies follow their post. */
export function contentPreview(properties: PostProperties): CopyPreview {
  return {
    text: String(properties.content),
    over: false,
    cut: false,
    permalink: "none",
    photos: [],
    ownText: false,
  };
}

/**
 * Sends the post alone while its source refuses every write (its database away for a moment): the
 * first target's copy URL, which never reaches the post.
 */
export async function sentWithItsWriteBackLost(
  fixture: SyndicationFixture,
  url: string,
): Promise<string | undefined> {
  const { update, updateAlongside } = fixture.posts;
  const away = async (): Promise<never> => {
    throw new Error("the database went away");
  };
  fixture.posts.update = away;
  fixture.posts.updateAlongside = away;
  try {
    return (await fixture.syndication.runs.syndicatePost(url, "manual")).targets[0]?.url;
  } finally {
    Object.assign(fixture.posts, { update, updateAlongside });
  }
}
