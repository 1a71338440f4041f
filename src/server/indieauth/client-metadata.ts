// What a client says of itself at its client_id URL: a JSON client metadata document (IndieAuth
// 2024) or an HTML page with an h-app (2020), with the redirect URIs it allows. Fetched under the
// outgoing-fetch rules (public addresses only, size cap, timeout): a client_id is a URL anyone can
// choose. When it cannot be had, the consent page shows the bare client_id: never fatal.
import { z } from "zod";
import { type OutgoingFetchPolicy, safeFetch } from "../../net/safe-fetch.ts";

export interface ClientInfo {
  clientId: string;
  name?: string;
  /** An https URL of the client's logo (http ones would be blocked by the page's CSP anyway). */
  logo?: string;
  url?: string;
  /** Redirect URIs the client lists beyond those on its own host. */
  redirectUris: string[];
  /** Whether anything could be read at the client_id URL. */
  fetched: boolean;
}

export const CLIENT_METADATA_MAX_BYTES = 256 * 1024;
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;

const metadataDocument = z.object({
  client_id: z.string(),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(2048).optional(),
  logo_uri: z.string().max(2048).optional(),
  redirect_uris: z.array(z.string().max(2048)).max(50).optional(),
});

const httpUrl = (value: unknown, base: string): string | undefined => {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value, base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
};

const plainName = (value: unknown): string | undefined => {
  const text = typeof value === "string" ? value : (value as { value?: unknown } | undefined)?.value;
  if (typeof text !== "string") return undefined;
  const trimmed = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return trimmed || undefined;
};

/** rel="redirect_uri" targets of a Link header (RFC 8288), resolved against the page's URL. */
function linkHeaderRedirects(header: string | null, base: string): string[] {
  if (!header) return [];
  const found: string[] = [];
  for (const match of header.matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*("([^"]*)"|[^;\s]+)/i.exec(match[2] ?? "");
    const rels = (rel?.[2] ?? rel?.[1] ?? "").toLowerCase().split(/\s+/);
    const url = rels.includes("redirect_uri") ? httpUrlOrAny(match[1] ?? "", base) : undefined;
    if (url) found.push(url);
  }
  return found;
}

/** Any absolute URL (a native app's own scheme too), resolved against base. */
function httpUrlOrAny(value: string, base: string): string | undefined {
  try {
    return new URL(value, base).href;
  } catch {
    return undefined;
  }
}

function fromJson(text: string, clientId: string): Omit<ClientInfo, "fetched"> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const document = metadataDocument.safeParse(parsed);
  // A document that names another client is not this client's (IndieAuth §4.2.1).
  if (!document.success || document.data.client_id !== clientId) return null;
  const { client_name, client_uri, logo_uri, redirect_uris } = document.data;
  return {
    clientId,
    name: plainName(client_name),
    url: httpUrl(client_uri, clientId),
    logo: httpUrl(logo_uri, clientId),
    redirectUris: (redirect_uris ?? []).flatMap((uri) => httpUrlOrAny(uri, clientId) ?? []),
  };
}

async function fromHtml(html: string, pageUrl: string, clientId: string, linkHeader: string | null) {
  // Loaded at the first client page, not at start: an idle server needs no parser (decision 0029).
  const { mf2 } = await import("microformats-parser");
  const parsed = mf2(html, { baseUrl: pageUrl });
  const app = parsed.items.find((item) => item.type?.some((type) => type === "h-app" || type === "h-x-app"));
  const property = (name: string) => app?.properties[name]?.[0];
  const logo = property("logo");
  return {
    clientId,
    name: plainName(property("name")),
    url: httpUrl(property("url"), pageUrl),
    logo: httpUrl(typeof logo === "string" ? logo : (logo as { value?: string } | undefined)?.value, pageUrl),
    redirectUris: [...(parsed.rels.redirect_uri ?? []), ...linkHeaderRedirects(linkHeader, pageUrl)],
  };
}

export async function fetchClientInfo(clientId: string, policy: OutgoingFetchPolicy): Promise<ClientInfo> {
  const bare: ClientInfo = { clientId, redirectUris: [], fetched: false };
  try {
    const response = await safeFetch(clientId, {
      policy,
      maxBytes: CLIENT_METADATA_MAX_BYTES,
      overflow: "truncate",
      timeoutMs: CLIENT_METADATA_TIMEOUT_MS,
      headers: { accept: "application/json, text/html;q=0.9" },
    });
    if (!response.ok) return bare;
    const text = new TextDecoder().decode(response.body);
    const type = response.headers.get("content-type") ?? "";
    const info = /json/i.test(type)
      ? fromJson(text, clientId)
      : await fromHtml(text, response.url, clientId, response.headers.get("link"));
    if (!info) return bare;
    const logo = info.logo?.startsWith("https:") ? info.logo : undefined;
    return { ...info, logo, fetched: true };
  } catch {
    return bare;
  }
}
