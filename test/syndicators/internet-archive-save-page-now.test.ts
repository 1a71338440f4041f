import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { SyndicationError } from "../../src/contract/syndication-error.ts";
import { InternetArchiveSyndicator } from "../../src/syndicators/internet-archive/index.ts";
import { type FakeArchive, startFakeArchive } from "../fakes/internet-archive.ts";
import { callOptions, note, publication } from "./fixtures.ts";

describe("Internet Archive: Save Page Now", () => {
  let archive: FakeArchive;
  let anonymousArchive: FakeArchive;
  let syndicator: InternetArchiveSyndicator;

  before(async () => {
    archive = await startFakeArchive({ accessKey: "access", secretKey: "secret", pendingPolls: 2 });
    anonymousArchive = await startFakeArchive({ pendingPolls: 0 });
    syndicator = new InternetArchiveSyndicator(
      { accessKey: "access", secretKey: "secret", serviceUrl: archive.url, pollIntervalMs: 10 },
      {},
    );
  });
  beforeEach(() => {
    archive.setRateLimited(false);
    archive.setCaptureError(null);
    archive.hangStatusChecks(false);
  });
  after(() => Promise.all([archive.close(), anonymousArchive.close()]));

  it("asks for a capture with the keys, waits while it is pending, and returns the capture's address", async () => {
    const url = await syndicator.syndicate(note(), publication, callOptions());
    const capture = archive.captures.at(-1);
    assert.ok(capture);
    assert.equal(capture.url, "https://example.org/notes/hello/");
    assert.equal(capture.authorization, "LOW access:secret");
    assert.equal(capture.accept, "application/json");
    assert.equal(archive.polls.get(capture.jobId), 3, "two pending answers, then success");
    assert.match(url, new RegExp(`^${archive.url}/web/\\d{14}/https://example\\.org/notes/hello/$`));
  });

  it("asks without signing in when no keys are given", async () => {
    const anonymous = new InternetArchiveSyndicator(
      { serviceUrl: anonymousArchive.url, pollIntervalMs: 10 },
      {},
    );
    const url = await anonymous.syndicate(note(), publication, callOptions());
    assert.equal(anonymousArchive.captures.at(-1)?.authorization, undefined);
    assert.match(url, /\/web\/\d{14}\/https:\/\/example\.org\/notes\/hello\/$/);
  });

  it("429: a clear 'rate limited, try again later', not permanent, with the wait asked for", async () => {
    archive.setRateLimited(120);
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), (error: unknown) => {
      assert.ok(error instanceof SyndicationError);
      assert.equal(error.message, "Internet Archive: 429 rate limited, try again later");
      assert.equal(error.status, 429);
      assert.equal(error.permanent, false);
      assert.equal(error.retryAfterSeconds, 120);
      return true;
    });
  });

  it("wrong keys: permanent, and says to check them", async () => {
    const wrong = new InternetArchiveSyndicator(
      { accessKey: "access", secretKey: "nope", serviceUrl: archive.url, pollIntervalMs: 10 },
      {},
    );
    await assert.rejects(wrong.syndicate(note(), publication, callOptions()), {
      message:
        "Internet Archive: 401 You need to be logged in to use Save Page Now. Check INTERNET_ARCHIVE_ACCESS_KEY and INTERNET_ARCHIVE_SECRET_KEY.",
      status: 401,
      permanent: true,
    });
  });

  it("a capture that fails: the archive's message and code, permanent only when retrying cannot help", async () => {
    archive.setCaptureError({ statusExt: "error:blocked-url", message: "This URL is excluded." });
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), {
      message:
        "Internet Archive: could not archive https://example.org/notes/hello/: This URL is excluded. (error:blocked-url)",
      permanent: true,
    });
    archive.setCaptureError({ statusExt: "error:not-found", message: "Server returned a 404 error." });
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), { permanent: false });
    archive.setCaptureError({
      statusExt: "error:too-many-daily-captures",
      message: "Today's limit is reached.",
    });
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), {
      message: "Internet Archive: rate limited, try again later (Today's limit is reached.)",
      permanent: false,
    });
  });

  it("stops polling when the signal aborts", async () => {
    archive.hangStatusChecks(Number.POSITIVE_INFINITY);
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions(undefined, 300)), {
      name: "SyndicationError",
      permanent: false,
    });
  });

  it("error:too-many-requests is the site refusing the crawler, not our rate limit", async () => {
    archive.setCaptureError({ statusExt: "error:too-many-requests", message: "Too many requests." });
    await assert.rejects(syndicator.syndicate(note(), publication, callOptions()), {
      message:
        'Internet Archive: example.org answered the archive\'s crawler "too many requests" (error:too-many-requests); the capture is tried again later',
      permanent: false,
    });
  });

  it("an attempt that runs out of time leaves its job; the next attempt polls that job, not a new capture", async () => {
    const saved: string[] = [];
    archive.hangStatusChecks(Number.POSITIVE_INFINITY);
    const capturesBefore = archive.captures.length;
    await assert.rejects(
      syndicator.syndicate(note(), publication, {
        ...callOptions(undefined, 300),
        checkpoint: async (value) => {
          saved.push(value);
        },
      }),
      { name: "SyndicationError" },
    );
    assert.equal(archive.captures.length, capturesBefore + 1);
    const jobId = archive.captures.at(-1)?.jobId;
    assert.equal(saved.length, 1);
    assert.equal((JSON.parse(saved[0] ?? "{}") as { job?: string }).job, jobId);

    archive.hangStatusChecks(false);
    const url = await syndicator.syndicate(note(), publication, { ...callOptions(), resumeFrom: saved[0] });
    assert.equal(archive.captures.length, capturesBefore + 1, "no second capture was asked for");
    assert.match(url, /\/web\/\d{14}\//);
  });

  it("a saved job too old to be worth polling starts a new capture", async () => {
    const old = JSON.stringify({ job: "spn2-old", at: new Date(Date.now() - 60 * 60 * 1000).toISOString() });
    const capturesBefore = archive.captures.length;
    await syndicator.syndicate(note(), publication, { ...callOptions(), resumeFrom: old });
    assert.equal(archive.captures.length, capturesBefore + 1);
    assert.equal(archive.polls.get("spn2-old"), undefined, "the old job was not polled");
  });

  it("declares its own time limit (150 s unless told), longer than the endpoint's default", () => {
    assert.equal(syndicator.timeoutMs, 150_000);
    const quick = new InternetArchiveSyndicator({ timeoutMs: 60_000 }, {});
    assert.equal(quick.timeoutMs, 60_000);
  });

  it("a post without a URL cannot be archived", async () => {
    await assert.rejects(syndicator.syndicate(note({ url: undefined }), publication, callOptions()), {
      message: "Internet Archive: the post has no URL to archive",
      permanent: true,
    });
  });
});
