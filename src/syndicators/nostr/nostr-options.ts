// Options of @possekit/syndicator-nostr. Events are signed with the private key, which comes from the
// environment (NOSTR_SECRET_KEY) unless given — an `nsec1…` key (NIP-19) or its 64 hex digits — or
// by a remote signer (NIP-46): `bunker` (its URI without the secret), `publicKey` (the account's, as
// the signer told it when connecting) and `clientSecretKey` (our side of the conversation). Without
// either the plug-in refuses to start. Only public keys are ever shown.
import { getPublicKey } from "nostr-tools/pure";
import { z } from "zod";
import { NOSTR_DEFAULT_RELAYS } from "../../contract/accounts.ts";
import {
  booleanOption,
  fromEnv,
  parseOptions,
  requiredString,
} from "../../contract/options/option-schemas.ts";
import { appendUrlOption, templateOption } from "../shared/copy-template.ts";
import { secretKeyBytes } from "./nostr-keys.ts";
import { bunkerPointer } from "./nostr-signer.ts";

export const nostrPluginId = "syndicator-nostr";

export const DEFAULT_RELAYS = NOSTR_DEFAULT_RELAYS;
export const DEFAULT_VIEWER = "https://njump.me/";

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A relay address: wss://, or ws:// on this machine only (a local relay for tests). */
export function relayUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.hash) return undefined;
  if (url.protocol === "wss:" || (url.protocol === "ws:" && loopbackHosts.has(url.hostname)))
    return url.href.replace(/\/$/, "");
  return undefined;
}

const relaySchema = z
  .string({ error: "must be a relay address such as wss://relay.example" })
  .transform((text, context) => {
    const url = relayUrl(text);
    if (url) return url;
    context.addIssue({ code: "custom", message: "must be a relay address such as wss://relay.example" });
    return z.NEVER;
  });

const keyOption = () =>
  requiredString("an nsec1… private key").transform((text, context) => {
    const bytes = secretKeyBytes(text);
    if (bytes) return bytes;
    context.addIssue({ code: "custom", message: "must be an nsec1… private key (or its 64 hex digits)" });
    return z.NEVER;
  });

const schema = z
  .object(
    {
      /** nsec1… or 64 hex digits: the key every event is signed with. */
      secretKey: keyOption().optional(),
      /** A remote signer (NIP-46) instead of the key: bunker://<its pubkey>?relay=wss://… */
      bunker: z
        .string({ error: "must be a bunker://… URI" })
        .transform((text, context) => {
          const pointer = bunkerPointer(text);
          if (pointer) return pointer;
          context.addIssue({ code: "custom", message: "must be a bunker://<hex pubkey>?relay=wss://… URI" });
          return z.NEVER;
        })
        .optional(),
      /** With `bunker`: the key of our side of the conversation with the signer. */
      clientSecretKey: keyOption().optional(),
      /** With `bunker`: the account's public key (hex), as the signer gave it. */
      publicKey: z
        .string({ error: "must be a public key in hex" })
        .regex(/^[0-9a-f]{64}$/, { error: "must be a public key in hex" })
        .optional(),
      /** Where the events go: a copy is sent once one of them takes it. */
      relays: z
        .array(relaySchema, { error: "must be a list of relay addresses such as wss://relay.example" })
        .min(1, { error: "must name at least one relay" })
        .max(20, { error: "may name at most 20 relays" })
        .transform((relays) => [...new Set(relays)])
        .default([...DEFAULT_RELAYS]),
      /** Where a copy's link points: this address followed by its nevent1… or naddr1… (NIP-19). */
      viewerUrl: z
        .string({ error: "must be an https URL such as https://njump.me/" })
        .url({ error: "must be an https URL such as https://njump.me/" })
        .refine((url) => url.startsWith("https://") || url.startsWith("http://127.0.0.1"), {
          error: "must be an https URL such as https://njump.me/",
        })
        .transform((url) => (url.endsWith("/") ? url : `${url}/`))
        .default(DEFAULT_VIEWER),
      /** A post with a name becomes a long-form article (kind 30023) rather than a note (kind 1). */
      articles: booleanOption(true),
      /** Link every note to the post, not only those made of a title or summary. */
      includePermalink: booleanOption(false),
      /** Add the post's categories as hashtags and `t` tags. */
      includeCategories: booleanOption(true),
      /** A note's text as a nunjucks template of the post; unset: name, else summary, else content. */
      template: templateOption(),
      /** When a note links to the post in its text: "always", "ifCut" or "never". */
      appendUrl: appendUrlOption(),
    },
    { error: "must be an object" },
  )

  .strict()
  .superRefine((options, context) => {
    if (options.bunker === undefined && options.secretKey === undefined)
      context.addIssue({
        code: "custom",
        path: ["secretKey"],
        message: "is required (or set NOSTR_SECRET_KEY, or give a remote signer as bunker)",
      });
    if (options.bunker !== undefined && options.secretKey !== undefined)
      context.addIssue({
        code: "custom",
        path: ["bunker"],
        message: "cannot be given with secretKey: choose one",
      });
    if (options.bunker !== undefined)
      for (const field of ["clientSecretKey", "publicKey"] as const)
        if (options[field] === undefined)
          context.addIssue({ code: "custom", path: [field], message: "is required with bunker" });
  });

type ParsedOptions = z.output<typeof schema>;

/** How the account signs: with its own key, or through a remote signer. */
export type NostrSigning =
  | { kind: "key"; secretKey: Uint8Array }
  | {
      kind: "remote";
      bunker: NonNullable<ParsedOptions["bunker"]>;
      clientSecretKey: Uint8Array;
    };

export type NostrOptions = Omit<ParsedOptions, "secretKey" | "bunker" | "clientSecretKey" | "publicKey"> & {
  publicKey: string;
  signing: NostrSigning;
};

export function parseNostrOptions(options: Record<string, unknown>, env: NodeJS.ProcessEnv): NostrOptions {
  const secretKey =
    options.secretKey ?? (options.bunker === undefined ? fromEnv(env, "NOSTR_SECRET_KEY") : undefined);
  const {
    secretKey: key,
    bunker,
    clientSecretKey,
    publicKey,
    ...rest
  } = parseOptions(nostrPluginId, schema, {
    ...options,
    secretKey,
  });
  if (key) return { ...rest, publicKey: getPublicKey(key), signing: { kind: "key", secretKey: key } };
  if (!bunker || !clientSecretKey || !publicKey) throw new Error("unreachable: checked by the schema");
  return { ...rest, publicKey, signing: { kind: "remote", bunker, clientSecretKey } };
}
