// Decision 0014, options: schedule and retry are validated like the other options of the endpoint, with
// one line naming the option and what to write; absent, they take the documented defaults.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEndpointOptions } from "./options.ts";

describe("schedule and retry options", () => {
  it("default to scheduling, when live, at once, retrying after 2^n minutes up to a day", () => {
    const options = parseEndpointOptions({});
    assert.deepEqual(options.schedule, { enabled: true, whenLive: true, afterPublishMs: 0 });
    assert.deepEqual(options.retry, { baseMs: 60_000, maxMs: 86_400_000 });
  });

  it("names the option and what to write instead", () => {
    const message = (value: Record<string, unknown>) => {
      try {
        parseEndpointOptions(value);
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    assert.equal(
      message({ retry: { baseMs: 60_000, maxMs: 1_000 } }),
      'endpoint-syndicate: option "retry.maxMs" must be at least retry.baseMs; raise it or lower baseMs',
    );
    assert.match(
      message({ schedule: { enabled: "yes" } }),
      /^endpoint-syndicate: option "schedule\.enabled" must be true or false/,
    );
    assert.match(
      message({ schedule: { afterPublishMs: -1 } }),
      /^endpoint-syndicate: option "schedule\.afterPublishMs" must be a whole number of milliseconds from 0 to 2592000000/,
    );
    assert.match(
      message({ schedule: { when: true } }),
      /^endpoint-syndicate: option "schedule" has unknown option when; the schedule options are/,
    );
    assert.match(
      message({ retry: { baseMs: 0.5 } }),
      /^endpoint-syndicate: option "retry\.baseMs" must be a whole number of milliseconds/,
    );
  });
});
