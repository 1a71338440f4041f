// Where the IndieAuth server answers, and how clients find it: the metadata document (IndieAuth
// §4.1.1) and, for clients older than it, the authorization_endpoint and token_endpoint rels.
import { SUPPORTED_SCOPES } from "./scopes.ts";

export const INDIEAUTH_PATH = "/auth";
export const METADATA_PATH = "/.well-known/oauth-authorization-server";

export interface IndieAuthUrls {
  issuer: string;
  metadata: string;
  authorization: string;
  token: string;
  revocation: string;
  introspection: string;
}

export function indieauthUrls(baseUrl: string): IndieAuthUrls {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    issuer: `${base}/`,
    metadata: `${base}${METADATA_PATH}`,
    authorization: `${base}${INDIEAUTH_PATH}`,
    token: `${base}${INDIEAUTH_PATH}/token`,
    revocation: `${base}${INDIEAUTH_PATH}/revoke`,
    introspection: `${base}${INDIEAUTH_PATH}/introspect`,
  };
}

export function metadataDocument(urls: IndieAuthUrls) {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorization,
    token_endpoint: urls.token,
    revocation_endpoint: urls.revocation,
    revocation_endpoint_auth_methods_supported: ["none"],
    introspection_endpoint: urls.introspection,
    introspection_endpoint_auth_methods_supported: ["Bearer"],
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
  };
}

/** The rels a client looks for on the home page, as Link header values and as <link> elements. */
export function discoveryLinks(urls: IndieAuthUrls): Array<{ rel: string; href: string }> {
  return [
    { rel: "indieauth-metadata", href: urls.metadata },
    { rel: "authorization_endpoint", href: urls.authorization },
    { rel: "token_endpoint", href: urls.token },
  ];
}
