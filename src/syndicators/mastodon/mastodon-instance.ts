// What this Mastodon instance allows, read from /api/v2/instance (Mastodon 4.0+), or from
// /api/v1/instance on older servers and compatible ones, so a status is fitted to the instance's own
// limits instead of a guess. Instances change their limits rarely: one read an hour is enough.
import { z } from "zod";
import { parseJson, readText, send, type Target } from "../shared/http.ts";

export interface InstanceLimits {
  /** configuration.statuses.max_characters */
  maxCharacters: number;
  /** configuration.statuses.characters_reserved_per_url: what every link counts, whatever its length. */
  charactersPerUrl: number;
  /** configuration.statuses.max_media_attachments */
  maxMedia: number;
  /** configuration.media_attachments.description_limit (Mastodon 4.4+): alt text, in characters. */
  altTextLimit: number;
  /** Whether these came from the instance (false: Mastodon's defaults, the instance did not say). */
  read: boolean;
}

/** Mastodon's own defaults, for an instance that does not say. */
export const defaultLimits: InstanceLimits = {
  maxCharacters: 500,
  charactersPerUrl: 23,
  maxMedia: 4,
  altTextLimit: 1500,
  read: false,
};

const count = z.number().int().positive().optional().catch(undefined);
const configurationSchema = z.object({
  statuses: z
    .object({
      max_characters: count,
      characters_reserved_per_url: count,
      max_media_attachments: count,
    })
    .optional()
    .catch(undefined),
  media_attachments: z.object({ description_limit: count }).optional().catch(undefined),
});
const instanceSchema = z.object({
  configuration: configurationSchema.optional().catch(undefined),
  /** Pleroma, Akkoma and glitch-soc's older field, on v1. */
  max_toot_chars: count,
  /** Pleroma and Akkoma's alt text limit, on v1 (lib/pleroma/web/mastodon_api/views/instance_view.ex). */
  description_limit: count,
});

function limitsFrom(body: unknown): InstanceLimits | undefined {
  const parsed = instanceSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { configuration, max_toot_chars, description_limit } = parsed.data;
  const statuses = configuration?.statuses;
  const maxCharacters = statuses?.max_characters ?? max_toot_chars;
  if (maxCharacters === undefined) return undefined;
  return {
    maxCharacters,
    charactersPerUrl: statuses?.characters_reserved_per_url ?? defaultLimits.charactersPerUrl,
    maxMedia: statuses?.max_media_attachments ?? defaultLimits.maxMedia,
    altTextLimit:
      configuration?.media_attachments?.description_limit ?? description_limit ?? defaultLimits.altTextLimit,
    read: true,
  };
}

async function readInstance(instanceUrl: string, version: "v1" | "v2", target: Target) {
  const response = await send(target, `${instanceUrl}/api/${version}/instance`, {
    headers: { accept: "application/json" },
  });
  const text = await readText(target, response);
  return response.ok ? limitsFrom(parseJson(text)) : undefined;
}

/** Reads the instance's limits: v2, then v1; Mastodon's defaults when neither says. */
export async function fetchInstanceLimits(instanceUrl: string, target: Target): Promise<InstanceLimits> {
  return (
    (await readInstance(instanceUrl, "v2", target)) ??
    (await readInstance(instanceUrl, "v1", target)) ??
    defaultLimits
  );
}

/** How long limits read from the instance are kept; defaults are asked again sooner. */
const readTtlMs = 60 * 60 * 1000;
const defaultsTtlMs = 60 * 1000;

/** One syndicator's cache of its instance's limits. */
export class InstanceLimitsCache {
  #limits: InstanceLimits | undefined;
  #expires = 0;

  constructor(
    private readonly instanceUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The limits last read, without asking the instance; undefined before the first read. */
  peek(): InstanceLimits | undefined {
    return this.#limits;
  }

  async get(target: Target): Promise<InstanceLimits> {
    if (this.#limits && this.now() < this.#expires) return this.#limits;
    const limits = await fetchInstanceLimits(this.instanceUrl, target);
    this.#limits = limits;
    this.#expires = this.now() + (limits.read ? readTtlMs : defaultsTtlMs);
    return limits;
  }
}
