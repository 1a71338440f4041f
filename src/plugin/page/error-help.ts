// What a network error code means to the person who has to fix it (decision 0051): "ECONNREFUSED" alone
// tells a reader nothing, so the page says what happened, which setting names the address, and what
// to check. The syndicators' messages read "<target>: could not reach <origin>: … (<cause>)".

export type ErrorHelpKind = "refused" | "notFound" | "unreachable" | "reset" | "timeout" | "certificate";

export interface ErrorHelp {
  kind: ErrorHelpKind;
  /** The address that could not be reached, when the message names it. */
  origin: string;
}

const CODES: [RegExp, ErrorHelpKind][] = [
  [/\bECONNREFUSED\b/, "refused"],
  [/\b(ENOTFOUND|EAI_AGAIN)\b/, "notFound"],
  [/\b(EHOSTUNREACH|ENETUNREACH)\b/, "unreachable"],
  [/\b(ECONNRESET|EPIPE|UND_ERR_SOCKET)\b/, "reset"],
  [/\b(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)\b|did not answer in time/, "timeout"],
  [
    /\b(CERT_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|ERR_TLS_CERT_ALTNAME_INVALID)\b/,
    "certificate",
  ],
];

/** The help for an error message, or null when it names no network failure we can explain. */
export function errorHelp(error: string | null | undefined): ErrorHelp | null {
  if (!error) return null;
  const found = CODES.find(([pattern]) => pattern.test(error));
  if (!found) return null;
  const origin =
    /(?:could not reach |^[^:]+: )(https?:\/\/[^\s/]+)/.exec(error)?.[1]?.replace(/:$/, "") ?? "";
  return { kind: found[1], origin };
}
