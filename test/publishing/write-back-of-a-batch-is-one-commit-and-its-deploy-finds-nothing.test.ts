// Decision 0033, write-back without a deploy storm: a batch run syndicating 20 posts writes their copies'
// links into the posts' front matter (syndication:) as ONE commit, not one per post or per target;
// the run a deploy webhook starts after that commit finds nothing to do and commits nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { type GitRemote, startGitRemote } from "./git-remote.ts";
import { type PublishingWorld, startPublishingWorld } from "./publishing-world.ts";

const POSTS = 20;

interface BatchBody {
  summary: { posts: number; syndicated: number };
  results: Array<{ url: string; syndication: string[] }>;
}

describe("the write-back of a batch run with the git store", () => {
  let remote: GitRemote;
  let world: PublishingWorld;
  before(async () => {
    remote = startGitRemote();
    world = await startPublishingWorld({
      publication: { store: { type: "git", url: remote.url }, preset: "hugo" },
      schedule: false,
    });
  });
  after(async () => {
    await world.close();
    remote.close();
  });

  const syndicateAll = async (): Promise<BatchBody> => {
    const response = await fetch(`${world.server.url}/syndicate`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${world.token}`,
        accept: "application/json",
        "content-type": "application/json",
      },
      body: "{}",
    });
    assert.equal(response.status, 200);
    return (await response.json()) as BatchBody;
  };

  it("makes exactly one commit for 20 posts, and the next run finds nothing", async () => {
    for (let n = 1; n <= POSTS; n++) {
      const response = await world.micropub({
        type: ["h-entry"],
        properties: { content: [`Post ${n}`], "mp-slug": [`post-${n}`], "mp-syndicate-to": [world.uid] },
      });
      assert.equal(response.status, 201);
    }
    const commitsBefore = remote.log().length;
    assert.equal(commitsBefore, POSTS + 1, "one commit per create");

    const run = await syndicateAll();
    assert.equal(run.summary.syndicated, POSTS);
    const log = remote.log();
    assert.equal(log.length, commitsBefore + 1, "one write-back commit for the whole run");
    assert.equal(log[0], `Syndication links ${POSTS} posts`);
    for (const result of run.results) {
      const slug = new URL(result.url).pathname.split("/")[2];
      const file = remote.file(`content/notes/${slug}.md`) ?? "";
      const data = parse(/^---\n([\s\S]*?)\n---\n/.exec(file)?.[1] ?? "") as { syndication?: string[] };
      assert.deepEqual(data.syndication, result.syndication, `${slug}'s front matter has its copy`);
      assert.equal(data.syndication?.length, 1);
    }

    // The deploy webhook of that commit starts a run: nothing to do, nothing committed.
    const next = await syndicateAll();
    assert.equal(next.summary.posts, 0);
    assert.equal(remote.log().length, commitsBefore + 1, "no loop");
    assert.equal(world.social.statuses.length, POSTS, "each post sent once");
  });
});
