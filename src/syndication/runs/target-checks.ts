// "Is this target usable?" asked of the target itself, without sending a post: each syndicator's
// verify() (Mastodon's verify_credentials, a Bluesky session, the archive's keys, Micropub's
// q=config), under a time limit, side by side. What it finds is recorded in the target health.

import type { Logger } from "../../contract/logger.ts";
import type { SyndicatorPlugin } from "../../contract/plugin.ts";
import { failureOf, type SyndicatorFailure } from "./call-syndicator.ts";
import type { FailureNotices } from "./failure-notices.ts";
import {
  healthState,
  type TargetHealth,
  type TargetHealthState,
  type TargetHealthStore,
} from "./target-health.ts";

export type CheckOutcome = { ok: true } | ({ ok: false } & SyndicatorFailure) | { ok: null };

/** One verify() call that settles within `timeoutMs` whatever the syndicator does; never rejects. */
export async function verifyTarget(syndicator: SyndicatorPlugin, timeoutMs: number): Promise<CheckOutcome> {
  const verify = syndicator.verify?.bind(syndicator);
  if (!verify) return { ok: null };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => {
      const message = `${syndicator.info.name} did not answer the check within ${timeoutMs / 1000} s`;
      resolve({ ok: false, error: message, permanent: false, uncertain: false });
      controller.abort(new Error(message));
    }, timeoutMs);
  });
  const called = Promise.resolve()
    .then(() => verify({ signal: controller.signal }))
    .then(
      (): CheckOutcome => ({ ok: true }),
      (error: unknown): CheckOutcome => ({ ok: false, ...failureOf(error) }),
    );
  try {
    return await Promise.race([called, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A configured target as GET {mountPath}/targets and the page show it. */
export interface TargetStatus {
  uid: string;
  name: string;
  service: string | null;
  state: TargetHealthState;
  /** Whether the target can be checked without sending (it has verify()). */
  checkable: boolean;
  checkedAt: Date | null;
  okAt: Date | null;
  error: string | null;
  errorStatus: number | null;
  refusedSince: Date | null;
  rateLimitedUntil: Date | null;
  /** Where its credentials are set (an environment variable or a config option), when it says. */
  setting: string | null;
}

export function targetStatuses(
  syndicators: readonly SyndicatorPlugin[],
  health: ReadonlyMap<string, TargetHealth>,
  now = Date.now(),
): TargetStatus[] {
  return syndicators.map((syndicator) => {
    const entry = health.get(syndicator.info.uid);
    const state = healthState(entry, now);
    return {
      uid: syndicator.info.uid,
      name: syndicator.info.name,
      service: syndicator.info.service?.name ?? null,
      state,
      checkable: typeof syndicator.verify === "function",
      checkedAt: entry?.checkedAt ?? null,
      okAt: entry?.okAt ?? null,
      error: entry?.error ?? null,
      errorStatus: entry?.errorStatus ?? null,
      refusedSince: entry?.refusedSince ?? null,
      rateLimitedUntil: state === "rate_limited" ? (entry?.rateLimitedUntil ?? null) : null,
      setting: syndicator.credentialSetting ?? null,
    };
  });
}

/** Checks the targets side by side and records each outcome. */
export async function checkTargets(
  syndicators: readonly SyndicatorPlugin[],
  store: TargetHealthStore,
  logger: Logger,
  timeoutMs: number,
  /** Told of a refusal, and of a success that may end one. */
  notices?: FailureNotices,
): Promise<void> {
  await Promise.all(
    syndicators.map(async (syndicator) => {
      const outcome = await verifyTarget(syndicator, timeoutMs);
      const { uid, name } = syndicator.info;
      try {
        if (outcome.ok === true) {
          await store.recordSuccess(uid, { checked: true });
          notices?.recovered(uid, name);
        } else if (outcome.ok === false) {
          await store.recordFailure(uid, outcome, { checked: true });
          if (outcome.status === 401 || outcome.status === 403)
            notices?.failure({
              kind: "refused",
              targetUid: uid,
              targetName: name,
              error: outcome.error,
              ...(syndicator.credentialSetting ? { setting: syndicator.credentialSetting } : {}),
              ...(syndicator.holdWhileRefused === true ? { reconnect: true } : {}),
            });
        }
      } catch (error) {
        logger.error("Could not record a target's check", {
          target: uid,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }),
  );
}
