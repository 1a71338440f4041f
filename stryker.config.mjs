// StrykerJS (generated mutants, issue 44): the modules where a slip costs users most, mutated and
// tested with node --test through the TAP runner, so that each mutant runs only the test files that
// reach its code (coverage per test file). Run on the files a change touches: scripts/stryker-changed.mjs
// (npm run test:stryker) sets `mutate` and the test files, and checks each folder's threshold
// (docs/testing.md, "Generated mutants"). Stryker 9.6 is the last line that runs on Node 20.
/**
 * The folders mutated, each with the lowest mutation score (%) it may have (scripts/stryker-changed.mjs).
 * Measured folders start at what they measured (docs/testing.md, "Generated mutants"); the others
 * at the goal of 80 % until a first measurement says otherwise. Raise a threshold as tests are added.
 */
export const FOLDERS = {
  // target-pauses.ts, target-health.ts, schedule-gate.ts, copy-digest.ts and idempotency-key.ts,
  // 29 Nov 2026 UTC: 98.5 % by Stryker with their new tests (262 of 266; before, no test of their own
  // imported them), 99.6 % (265) after a re-run of the survivors' lines with tests for them; 99:
  // target-pauses.ts is the lowest, 99.1 %, its survivor equivalent. post-changes.ts 100 % and
  // post-filter.ts 95.9 % (29 Nov 2026 UTC, new tests; its 4 left: 3 equivalent, 1 open): 95, so that a
  // run of post-filter.ts passes. Session 20, with new tests (docs/testing.md): ledger/outcomes.ts
  // 64.2 % → 96.2 %, rows.ts 73.3 % → 100 %, claims.ts, post-result.ts and failure-notices.ts 100 %,
  // call-syndicator.ts lines 1–120 99.1 %: they pass 95. Below it, said rather than hidden:
  // broadcast.ts 80.5 % (every survivor equivalent) and lease.ts 86.4 % (its new test alone; 2 open).
  // Since (docs/testing.md, "Measured again"): broadcast.ts 100 % with its 15 equivalents marked
  // `Stryker disable`; lease.ts 95.4 % (its 2 open killed by new
  // tests, its equivalent marked; 5 of the renewal-while-renewing flags left open).
  // The rest of the ledger, run-log.ts and target-checks.ts are not measured yet. Gated on a change's
  // lines since decision 0079: the batch's new walk measured batch.ts 93.3 % (its 2 left equivalent),
  // and CI's sample of 14e6687 scored 85.0 % (17 killed, none survived, 3 "no coverage" on a line the
  // stale index sent to tests that no longer reach it): 90, under batch.ts's 93.3 %, so that
  // a sample fails on survivors rather than on the index's age.
  "src/syndication": 90,
  // entry-plan.ts: 92.7 %, every survivor an equivalent mutant. fetch-feed.ts (a feed's conditional
  // GET, 410, backoff), 29 Nov 2026 UTC: 79.0 % by Stryker before its new cases, 96.9 % after (157 of
  // 162), its survivors equivalent but one killed since. The feed parser and micropub-source.ts, 29 Nov
  // 2026 UTC, with new tests (docs/testing.md): parse-feed.ts 69.9 % → 85.3 %, feed-date.ts 70.8 % →
  // 88.3 % and normalise-entry.ts 54.0 % → 90.0 % (samples of 120 and 100), micropub-source.ts 87.1 %
  // (new test); 85: parse-feed.ts is the lowest (its survivors are messages' wording, equivalent, or
  // edge cases listed there), so that a run of any one of them passes.
  "src/sources": 85,
  // path-template.ts, real-path.ts and post-file.ts, 29 Nov 2026 UTC, with their new tests: 96.2 % by
  // Stryker (176 of 183), 98.4 % with the survivors killed since and checked by hand; the 3 left are
  // equivalent (docs/testing.md). Session 20, the writers with their new tests: git.ts 97.2 % (35 of
  // 36, with 2 killed since), a sample of 11 of git-writer.ts's 221 100 % (45.5 % before), and
  // folder-writer.ts 89.1 % (49 of 55, with 2 killed since; 85.5 % by Stryker): its 3 left uncovered
  // (a temporary file removed when its rename fails) no test reaches without a race. 89, the lowest
  // file's, so that a run of any one of them passes. The folder's other files are not measured yet.
  "src/server/stores": 89,
  // tokens.ts and constant-time.ts (28 Nov 2026), token-signer.ts, authenticate.ts, session.ts,
  // session-revocations.ts and a sample of 27 of token-registry.ts's 146 mutants (29 Nov 2026 UTC):
  // 92.8 % by Stryker (377 of 406), 96.8 % with the survivors killed since and checked by hand; 90,
  // the lowest file's (session-revocations.ts, 90.9 %: its 3 survivors left are equivalent), so that a
  // run of any one of them passes (docs/testing.md, "Who is asking, sessions, grants…"). Session 20, a
  // sample of 16 more of token-registry.ts: 81.3 % (13), its 3 survivors judged equivalent (the memory
  // sweep and equal dates); 90 stays: within that sample's error, and 100 % over its non-equivalent.
  "src/server/auth": 90,
  // pkce.ts, scopes.ts, consent-ticket.ts, revocation.ts and token.ts's spendCode (28 Nov 2026) and a
  // sample of 33 of grant-store.ts's 157 mutants (29 Nov 2026 UTC): 93.8 % by Stryker (135 of 144);
  // the survivors are equivalent, or killed since, the rest open (docs/testing.md). Session 19, with
  // new tests: client-id.ts 90.9 % by Stryker (92.9 % with 2 killed since; 0 % before), token.ts
  // whole 97.1 % (25.0 % before), client-metadata.ts 84.1 % (92.7 %), a sample of 30 of
  // authorization.ts's 128 80.0 % (86.7 %; 53.3 % before); their survivors left are equivalent.
  // 93 stays: client-id.ts alone passes it within its sample's error, and so would the others now.
  // Session 20: authorization.ts whole, 94.5 % by Stryker with its new test (120 of 127), 96.9 % (123)
  // with 3 survivors killed since, its 4 left equivalent: a run of it passes 93.
  "src/server/indieauth": 93,
  // The whole folder, 28 Nov 2026: 85.3 % by Stryker (366 of 429; 49.0 % before its tests), 86.2 % with
  // 4 survivors killed since and checked by hand; the others in docs/testing.md.
  "src/net": 85,
  // hmac.ts, netlify.ts and receive.ts (signatures and replay), 28 Nov 2026: 71.8 % by Stryker before
  // their new tests, 95.9 % after (235 of 245). decision.ts, github-deploy.ts, netlify-deploy.ts,
  // delivery-keys.ts and options.ts, 29 Nov 2026 UTC: 86.3 % by Stryker (201 of 233), 89.7 % with 8
  // survivors killed since and checked by hand; 80, not 94: options.ts alone is 80.0 % (its zod
  // messages untested). deliveries.ts 90.9 % (its 2 survivors equivalent), raw-body.ts: see
  // docs/testing.md (session 19).
  "src/plugin/webhooks": 80,
  // notifier.ts, 28 Nov 2026: 95.7 % (177 of 185; 57.0 % before its tests); the 8 survivors in
  // docs/testing.md. Session 19: notification-settings.ts 98.2 % (its 2 survivors equivalent),
  // test-message.ts 87.0 % by Stryker, 89.1 % (41 of 46) with its survivor killed since, its other 5
  // equivalent; a sample of 14 of settings-store.ts's 84, 100 %; notifications.ts has no mutant. 89,
  // not 95: test-message.ts is the lowest, so that a run of any one of them passes (docs/testing.md).
  "src/notifications": 89,
};

/**
 * The folders whose score on a change's lines CI prints but does not gate on, each with why: none
 * since decision 0079. src/syndication and src/sources were (decisions 0071 and 0076) while the tests
 * chosen for a sampled mutant were the cheapest that execute its line, not those written to guard it
 * (one sample scored src/syndication 68.4 % that way); the choice now takes each mutant's guarding
 * tests first (the probe's ranking for its line), and both are gated. A folder named here is printed
 * with its reason when below its threshold and never fails the part: name one only with a measurement
 * that says its tests, not what they catch, are out of the part's reach.
 * @type {Record<string, string>}
 */
export const REPORTED_ONLY = {};

export const REPORT_DIR = "reports/stryker";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "tap",
  plugins: ["@stryker-mutator/tap-runner"],
  coverageAnalysis: "perTest",
  mutate: Object.keys(FOLDERS).flatMap((folder) => [`${folder}/**/*.ts`, `!${folder}/**/*.test.ts`]),
  tap: {
    testFiles: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Our TypeScript through the project's own hooks, as scripts/test.mjs runs it.
    nodeArgs: ["--import", "./scripts/typescript/register.mjs", "--liftoff-only", "{{testFile}}"],
    forceBail: true,
  },
  // The CPU is shared (CI, or a developer's laptop): one test process at a time by default.
  concurrency: 1,
  timeoutMS: 60_000,
  timeoutFactor: 2,
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["data", "dist", "reports", "bench/.scratch", "test-results", ".tmp", "interop"],
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: `${REPORT_DIR}/mutation.json` },
  htmlReporter: { fileName: `${REPORT_DIR}/mutation.html` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: "always",
};
