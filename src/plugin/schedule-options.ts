// The `schedule` and `retry` options of the endpoint plug-in (decision 0014): whether the server sends
// what is due by itself, when a new post counts as due, and how failed sends back off. Each message
// says what to write instead; the host puts the option's path in front of it.
import { z } from "zod";

const DAY_MS = 86_400_000;
const MAX_MS = 30 * DAY_MS;

const milliseconds = (min: number, example: string) => {
  const message = `must be a whole number of milliseconds from ${min} to ${MAX_MS}, such as ${example}`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(MAX_MS, { error: message });
};

export const scheduleOptionsSchema = z
  .strictObject(
    {
      /** false: nothing is sent until a click, a webhook, `POST {mountPath}` or the CLI asks. */
      enabled: z.boolean({ error: "must be true or false (false: send only when asked)" }).default(true),
      /** Automatic sends of a new post wait until its URL answers 2xx (a static site's deploy). */
      whenLive: z
        .boolean({ error: "must be true or false (false: send afterPublishMs after publishing)" })
        .default(true),
      /** How long after `published` a new post becomes due for an automatic send. */
      afterPublishMs: milliseconds(0, "0 (the default) or 60000").default(0),
      /** The longest sleep of the scheduler (default one minute); for tests and benchmarks. */
      maxSleepMs: milliseconds(10, "60000 (the default)").optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
            "the schedule options are enabled, whenLive, afterPublishMs and maxSleepMs."
          : "must be an object, such as { enabled: true, whenLive: true, afterPublishMs: 0 }.",
    },
  )
  // An absent `schedule` entry means all the defaults.
  .prefault({});

export const retryOptionsSchema = z
  .strictObject(
    {
      /** Attempt n of a failed send waits min(2^n × baseMs, maxMs). */
      baseMs: milliseconds(1, "60000 (the default)").default(60_000),
      maxMs: milliseconds(1, "86400000 (one day, the default)").default(DAY_MS),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? `has unknown option${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; ` +
            "the retry options are baseMs and maxMs."
          : "must be an object, such as { baseMs: 60000, maxMs: 86400000 }.",
    },
  )
  .prefault({})
  .refine((retry) => retry.maxMs >= retry.baseMs, {
    path: ["maxMs"],
    error: "must be at least retry.baseMs; raise it or lower baseMs",
  });

export type ScheduleOptions = z.output<typeof scheduleOptionsSchema>;
export type RetryOptions = z.output<typeof retryOptionsSchema>;
