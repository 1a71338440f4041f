// Connecting a Bluesky account from the page with an app password, and disconnecting one. Before
// anything is stored: the handle becomes a DID (com.atproto.identity.resolveHandle on the entryway,
// atproto.com/specs/handle), the DID its document (did:plc from the PLC directory, did:web from
// /.well-known/did.json: atproto.com/specs/did), whose #atproto_pds service is the account's PDS, and
// com.atproto.server.createSession there must accept the password (401 AuthenticationRequired when
// it does not). The session's refresh token is kept so that disconnecting can end it
// (com.atproto.server.deleteSession); the app password itself can only be revoked by the user, in
// Bluesky's settings.
import {
  type AccountConnector,
  AccountError,
  type ConnectContext,
  type ConnectedAccount,
  type DisconnectOutcome,
} from "../../contract/accounts.ts";
import { accountRequest, hostOf, serviceOrigin } from "../shared/account-fetch.ts";

export const DEFAULT_ENTRYWAY = "https://bsky.social";
export const DEFAULT_PLC_DIRECTORY = "https://plc.directory";

/** What Bluesky's app passwords look like: four groups of four lower-case letters and digits. */
export const APP_PASSWORD_SHAPE = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/;

const handleShape = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const didShape = /^did:(plc:[a-z0-9]{8,64}|web:[a-z0-9.-]+(%3A\d+)?)$/;

interface DidDocument {
  id?: unknown;
  service?: { id?: unknown; type?: unknown; serviceEndpoint?: unknown }[];
}

async function resolveDid(identifier: string, entryway: string, context: ConnectContext): Promise<string> {
  if (identifier.startsWith("did:")) {
    if (!didShape.test(identifier))
      throw new AccountError(`${identifier} is not a did:plc or did:web`, "invalid", "badIdentifier");
    return identifier;
  }
  const handle = identifier.replace(/^@/, "").toLowerCase();
  if (!handleShape.test(handle))
    throw new AccountError(`${identifier} is no Bluesky handle or DID`, "invalid", "badIdentifier");
  const answer = await accountRequest(
    `${entryway}/xrpc/com.atproto.identity.resolveHandle?handle=${encodeURIComponent(handle)}`,
    context,
  );
  const did = (answer.json as { did?: unknown } | undefined)?.did;
  if (answer.status !== 200 || typeof did !== "string" || !didShape.test(did))
    throw new AccountError(`${handle} could not be resolved to an account`, "invalid", "unknownHandle", {
      handle,
    });
  return did;
}

async function pdsOf(did: string, plcDirectory: string, context: ConnectContext): Promise<string> {
  const url = did.startsWith("did:plc:")
    ? `${plcDirectory}/${did}`
    : `https://${decodeURIComponent(did.slice("did:web:".length))}/.well-known/did.json`;
  const answer = await accountRequest(url, context);
  const document = answer.json as DidDocument | undefined;
  const pds = document?.service?.find(
    (service) => service.id === "#atproto_pds" || service.id === `${did}#atproto_pds`,
  )?.serviceEndpoint;
  if (answer.status !== 200 || document?.id !== did || typeof pds !== "string")
    throw new AccountError(`The DID document of ${did} names no PDS`, "invalid", "noPds", { did });
  return serviceOrigin(pds, "PDS");
}

interface Session {
  did?: unknown;
  handle?: unknown;
  refreshJwt?: unknown;
}

export const blueskyAccount: AccountConnector = {
  async connect(fields, context) {
    const identifier = (fields.identifier ?? "").trim();
    const password = fields.password ?? "";
    if (identifier === "" || password === "")
      throw new AccountError("identifier and password are required", "invalid", "missing");
    if (!APP_PASSWORD_SHAPE.test(password) && fields.confirmed !== "yes")
      throw new AccountError(
        "This does not look like an app password (xxxx-xxxx-xxxx-xxxx): confirm to use it anyway",
        "confirm",
        "notAppPassword",
      );
    const entryway = serviceOrigin(fields.entryway || DEFAULT_ENTRYWAY, "entryway");
    const plcDirectory = serviceOrigin(fields.plcDirectory || DEFAULT_PLC_DIRECTORY, "plcDirectory");
    const did = await resolveDid(identifier, entryway, context);
    const pds = await pdsOf(did, plcDirectory, context);
    const answer = await accountRequest(`${pds}/xrpc/com.atproto.server.createSession`, context, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ identifier: did, password }),
    });
    const session = (answer.json ?? {}) as Session;
    if (answer.status === 401)
      throw new AccountError(`${hostOf(pds)} refused the app password`, "invalid", "refused", {
        service: "Bluesky",
      });
    if (answer.status !== 200 || session.did !== did || typeof session.handle !== "string")
      throw new AccountError(
        `${hostOf(pds)} did not open a session (${answer.status})`,
        "invalid",
        "noSession",
        {
          host: hostOf(pds),
        },
      );
    const handle = session.handle.toLowerCase();
    const profile = `https://bsky.app/profile/${handle}`;
    return {
      options: { handle, serviceUrl: pds },
      display: { name: `@${handle}`, url: profile, instance: hostOf(pds) },
      secrets: {
        password,
        ...(typeof session.refreshJwt === "string" ? { refreshJwt: session.refreshJwt } : {}),
      },
    };
  },

  async disconnect(
    account: ConnectedAccount,
    secrets: Readonly<Record<string, string>>,
    context: ConnectContext,
  ): Promise<DisconnectOutcome> {
    const byHand = { key: "blueskyAppPassword", params: { handle: account.display.name } };
    if (!secrets.refreshJwt) return { revoked: false, byHand };
    const answer = await accountRequest(
      `${String(account.options.serviceUrl)}/xrpc/com.atproto.server.deleteSession`,
      context,
      { method: "POST", headers: { authorization: `Bearer ${secrets.refreshJwt}` } },
    );
    // The session ends; the app password stays valid until the user revokes it on Bluesky.
    return { revoked: answer.status === 200, byHand };
  },
};
