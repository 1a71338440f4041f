// The two properties that syndication changes, `syndication` (the copies' links) and
// `mp-syndicate-to` (the targets still asked for), live in two places: the remote server's post
// and possekit's row of it. Either side may change them: possekit adds a link and drops a target
// when a copy is made; the user adds or cancels a target, or removes a link, on the remote site.
//
// They are merged three ways against `base`, what the remote held the last time both sides agreed
// (stored only once the remote has confirmed it). A change on one side since then is carried to
// the other; nothing needs remembering in between. So a write-back lost to a remote that was down,
// or to a crash between the copy and the update, is found again at the next poll: the row holds a
// link the base does not, which the remote lacks.
import { valuesOf } from "../../contract/jf2.ts";
import type { MicropubUpdate } from "../../contract/micropub-wire.ts";

export interface LinkState {
  syndication: string[];
  syndicateTo: string[];
}

export interface LinkMerge {
  /** What both sides hold afterwards (the next base, once the remote has it). */
  merged: LinkState;
  /** The row must change to `merged`. */
  localChanged: boolean;
  /** The Micropub update that brings the remote to `merged`; none when it holds it already. */
  remoteUpdate?: MicropubUpdate;
}

/** The two properties of JF2 properties, as lists of distinct strings (one value or an array). */
export function linkStateOf(properties: Record<string, unknown>): LinkState {
  const strings = (name: string) => [
    ...new Set(valuesOf(properties[name]).filter((value): value is string => typeof value === "string")),
  ];
  return { syndication: strings("syndication"), syndicateTo: strings("mp-syndicate-to") };
}

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value) => b.includes(value));

/**
 * One list merged three ways: what either side removed since `base` is gone, what either added is
 * there. The remote's order first, then what possekit added.
 */
function mergeList(base: readonly string[], remote: readonly string[], local: readonly string[]): string[] {
  const removed = new Set([
    ...base.filter((value) => !remote.includes(value)),
    ...base.filter((value) => !local.includes(value)),
  ]);
  return [...new Set([...remote, ...local])].filter((value) => !removed.has(value));
}

/**
 * Merges the row's links with the remote's. Without a base (a post never agreed on) the remote's
 * state is the base: what the row holds beyond it is possekit's own and is written back.
 */
export function mergeLinks(base: LinkState | undefined, remote: LinkState, local: LinkState): LinkMerge {
  const from = base ?? remote;
  const merged: LinkState = {
    syndication: mergeList(from.syndication, remote.syndication, local.syndication),
    syndicateTo: mergeList(from.syndicateTo, remote.syndicateTo, local.syndicateTo),
  };
  const localChanged =
    !sameSet(merged.syndication, local.syndication) || !sameSet(merged.syndicateTo, local.syndicateTo);
  const update: MicropubUpdate = {};
  if (!sameSet(merged.syndication, remote.syndication)) {
    // Links only added (the usual write-back) go as `add`, which leaves a link the user adds
    // meanwhile in place; a removal needs the whole list replaced.
    const onlyAdded = remote.syndication.every((url) => merged.syndication.includes(url));
    const added = merged.syndication.filter((url) => !remote.syndication.includes(url));
    if (onlyAdded) update.add = { syndication: added };
    else update.replace = { syndication: merged.syndication };
  }
  if (!sameSet(merged.syndicateTo, remote.syndicateTo)) {
    // As Indiekit's own syndicate endpoint does: the targets left replace the list, and a post
    // with none left loses the property, which is how it stops awaiting syndication there.
    if (merged.syndicateTo.length === 0) update.delete = ["mp-syndicate-to"];
    else update.replace = { ...update.replace, "mp-syndicate-to": merged.syndicateTo };
  }
  const remoteUpdate = Object.keys(update).length > 0 ? update : undefined;
  return { merged, localChanged, ...(remoteUpdate ? { remoteUpdate } : {}) };
}

/**
 * One way, for a site whose own post is the truth and which never names targets (a feed's site):
 * the copies' links the row holds are added there, unless the site holds them already or had them
 * once (a link the user removed there stays removed). Nothing comes back to the row; what is
 * agreed is every link the site has had from here.
 */
export function addedLinks(base: LinkState | undefined, remote: LinkState, local: LinkState): LinkMerge {
  const had = base?.syndication ?? [];
  const added = local.syndication.filter((url) => !remote.syndication.includes(url) && !had.includes(url));
  const merged: LinkState = { syndication: [...new Set([...had, ...local.syndication])], syndicateTo: [] };
  return {
    merged,
    localChanged: false,
    ...(added.length > 0 ? { remoteUpdate: { add: { syndication: added } } } : {}),
  };
}
