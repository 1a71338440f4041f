// The set-up the compose page's tests share: a follow world (the host, its scheduler and a Mastodon
// sandbox target) started before a describe block's tests and closed after them, the owner signed in;
// with the owner's requests to the plug-in's pages (HTML, no redirect followed) and the multipart
// form the compose and edit pages send.

import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { type FollowWorld, startFollowWorld } from "../follow/follow-world.ts";
import type { Engine } from "../helpers/databases.ts";
import { startedForTheBlock } from "../helpers/started-for-the-block.ts";

export interface PageAnswer {
  status: number;
  location: string | null;
  html: string;
}

export interface ComposeAsOwner {
  readonly world: FollowWorld;
  /** The owner's browser session: its cookie and its CSRF token. */
  readonly session: { cookie: string; csrf: string };
  /** The owner's request to `path` below the plug-in's mount path, read in `language`. */
  page(path: string, init?: RequestInit, language?: string): Promise<PageAnswer>;
  /** The photos the stored post at `url` names, each with its alt text ("" when it has none). */
  storedPhotos(url: string): Promise<Array<{ url: string; alt: string }>>;
  /** The files in the host's media store, by name, sorted. */
  mediaFiles(): Promise<string[]>;
}

/** Call inside a describe block: its before and after hooks start and close what it answers. */
export function composeAsOwner(engine: Engine, hostConfig?: Record<string, unknown>): ComposeAsOwner {
  const running = startedForTheBlock(
    "composeAsOwner",
    async () => {
      const world = await startFollowWorld(engine, undefined, hostConfig);
      return { world, session: await world.app.server.signIn() };
    },
    ({ world }) => world.close(),
  );
  return {
    get world() {
      return running().world;
    },
    get session() {
      return running().session;
    },
    async page(path, init = {}, language = "en") {
      const { world, session } = running();
      const headers = new Headers(init.headers);
      headers.set("cookie", session.cookie);
      headers.set("accept", "text/html");
      headers.set("accept-language", language);
      const response = await fetch(`${world.app.url}/syndicate${path}`, {
        redirect: "manual",
        ...init,
        headers,
      });
      return {
        status: response.status,
        location: response.headers.get("location"),
        html: await response.text(),
      };
    },
    async storedPhotos(url) {
      const photo = (await running().world.properties(url))?.photo;
      return (Array.isArray(photo) ? photo : []).map((item) =>
        typeof item === "string"
          ? { url: item, alt: "" }
          : { url: item.url as string, alt: (item.alt as string) ?? "" },
      );
    },
    async mediaFiles() {
      const folder = running().world.app.server.host.media.folder;
      assert.ok(folder);
      return (await readdir(folder).catch(() => [])).filter((name) => !name.startsWith(".")).sort();
    },
  };
}

/** A form field: text, or a file's bytes and type. */
export type Field = [name: string, value: string | { bytes: Uint8Array<ArrayBuffer>; type: string }];

/** The fields as a browser sends a multipart form, in order (a file part named "photo"). */
export function multipart(fields: Field[]): FormData {
  const form = new FormData();
  for (const [name, value] of fields)
    if (typeof value === "string") form.append(name, value);
    else form.append(name, new Blob([value.bytes], { type: value.type }), "photo");
  return form;
}
