// Decision 0052: the syndication core's errors become HTTP answers in one place (core-errors.ts), which
// the endpoint's routers mount after their routes; the routes throw and never call next().
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../../contract/http-error.ts";
import { PostNotFoundError } from "../../contract/posts.ts";
import {
  SyndicationInProgressError,
  SyndicationShuttingDownError,
  TargetNotConfirmableError,
  TargetNotSkippableError,
} from "../../syndication/errors.ts";
import { coreErrors, httpErrorOf } from "./core-errors.ts";

const url = "https://blog.example/a/";
const uid = "https://social.example/@me";

describe("the core's errors as HTTP answers", () => {
  it("a post that is not there is 404 naming its URL", () => {
    const answer = httpErrorOf(new PostNotFoundError(url));
    assert.deepEqual(
      [answer?.status, answer?.code, answer?.description],
      [404, "not_found", `No post exists at ${url}`],
    );
  });

  it("a run in progress is 409 with Retry-After", () => {
    const since = new Date("2026-01-01T00:00:00Z");
    const answer = httpErrorOf(
      new SyndicationInProgressError(
        { runId: "7", since, trigger: "batch", holder: "h", expiresAt: since },
        12,
      ),
    );
    assert.equal(answer?.status, 409);
    assert.equal(answer?.code, "syndication_in_progress");
    assert.deepEqual(answer?.headers, { "Retry-After": "12" });
  });

  it("a server shutting down is 503", () => {
    assert.equal(httpErrorOf(new SyndicationShuttingDownError())?.status, 503);
  });

  it("a target that cannot be confirmed or skipped is 409 saying why", () => {
    for (const error of [new TargetNotConfirmableError(url, uid), new TargetNotSkippableError(url, uid)]) {
      const answer = httpErrorOf(error);
      assert.equal(answer?.status, 409);
      assert.equal(answer?.description, error.message);
    }
  });

  it("passes any other error on as it is", () => {
    const other = new Error("something else");
    const forwarded: unknown[] = [];
    const next = (error?: unknown) => {
      forwarded.push(error);
    };
    coreErrors(other, {} as never, {} as never, next);
    assert.deepEqual(forwarded, [other]);
    coreErrors(new PostNotFoundError(url), {} as never, {} as never, next);
    assert.ok(forwarded[1] instanceof HttpError);
  });
});
