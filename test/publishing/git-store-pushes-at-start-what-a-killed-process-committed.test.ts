// Decision 0032: the server is SIGKILLed between the commit of a new post and its push (the remote holds
// the push up, then refuses it). Nothing is lost: the next start of the server pushes the commit,
// and the remote then has the post's file. Real processes: the server as a child, git, a bare
// repository whose pre-receive hook holds pushes while a file says so.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ChildServer, SHARED_ME, startChildServer } from "../helpers/child-server.ts";
import { eventually, until } from "../helpers/eventually.ts";
import { git, startGitRemote } from "./git-remote.ts";

describe("a server killed between a commit and its push", () => {
  const remote = startGitRemote();
  const folder = mkdtempSync(join(tmpdir(), "possekit-killed-"));
  const dataDir = join(folder, "data");
  const hold = join(folder, "hold-pushes");
  const refuse = join(folder, "refuse-pushes");
  const refused = join(folder, "a-push-was-refused");
  const holding = join(folder, "a-push-is-held");
  const children: ChildServer[] = [];
  after(async () => {
    for (const child of children) await child.stop();
    rmSync(folder, { recursive: true, force: true });
    remote.close();
  });

  const start = async () => {
    const child = await startChildServer({
      config: {
        application: { dataDir },
        publication: { store: { type: "git", url: remote.url }, preset: "hugo" },
      },
    });
    children.push(child);
    return child;
  };

  it("pushes the commit at the next start", async () => {
    const hook = join(remote.url, "hooks", "pre-receive");
    writeFileSync(
      hook,
      `#!/bin/sh\ntouch '${holding}'\nwhile [ -e '${hold}' ]; do sleep 0.05; done\nif [ -e '${refuse}' ]; then touch '${refused}'; exit 1; fi\nexit 0\n`,
    );
    chmodSync(hook, 0o755);
    const first = await start();
    writeFileSync(hold, "");
    writeFileSync(refuse, "");
    const token = await first.token("create");
    const request = fetch(`${first.url}/micropub`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ h: "entry", content: "Committed, then killed", "mp-slug": "killed" }),
    }).catch(() => undefined);

    // The commit is made and its push is under way, held by the remote.
    await until("the push is held by the remote", () => existsSync(holding));
    const workdirs = join(dataDir, "site-repository");
    const workdir = readdirSync(workdirs).map((name) => join(workdirs, name))[0] ?? "";
    assert.equal(git(workdir, "log", "-1", "--format=%s").trim(), `Create ${SHARED_ME}/notes/killed/`);
    await first.kill("SIGKILL");
    await request;
    rmSync(hold); // the push left behind by the killed process is refused
    await until("the held push is refused", () => existsSync(refused));
    assert.equal(remote.file("content/notes/killed.md"), undefined, "not on the remote yet");

    rmSync(refuse);
    const second = await start();
    await eventually("the commit is pushed at the next start", async () =>
      remote.file("content/notes/killed.md"),
    );
    assert.equal(remote.log()[0], `Create ${SHARED_ME}/notes/killed/`);
    assert.equal(remote.log().filter((subject) => subject.includes("killed")).length, 1, "pushed once");
    await second.stop();
  });
});
