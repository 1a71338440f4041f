// Starts a real Bluesky PDS (@atproto/pds) and an in-memory PLC directory (@did-plc/server) on
// 127.0.0.1, in development configuration, so that no DID or request ever leaves the machine. Based
// on /work/shared/interop/bluesky-pds-start.mjs. Run as a child process by the interop test:
//   PDS_PORT=… PLC_PORT=… PDS_DATA=<folder> [PDS_RATE_LIMITS=1] node interop/bluesky/start-pds.mjs
// Once both listen, it prints one JSON line {"pds": "<url>", "plc": "<url>"}; SIGTERM stops both.
// PDS_RATE_LIMITS=1 turns on the PDS's own rate limits (in memory), as on bsky.social.
import http from "node:http";
import { createInterface } from "node:readline";

// The PDS's clock can be moved ahead, as if time had passed (for an access token to expire): a line
// {"advanceClockMs": N} on standard input moves every `new Date()` and `Date.now()` of this process
// N ms ahead, and is answered with {"clockAdvancedMs": <total>}. Installed before the PDS is loaded.
const RealDate = Date;
let clockOffsetMs = 0;
globalThis.Date = class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + clockOffsetMs);
    else super(...args);
  }
  static now() {
    return RealDate.now() + clockOffsetMs;
  }
};
createInterface({ input: process.stdin }).on("line", (line) => {
  const { advanceClockMs } = JSON.parse(line);
  if (Number.isFinite(advanceClockMs)) clockOffsetMs += advanceClockMs;
  console.log(JSON.stringify({ clockAdvancedMs: clockOffsetMs }));
});

// Every server of this process listens on loopback only, whatever address the libraries ask for.
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number") {
    const callback = args.find((arg) => typeof arg === "function");
    return listen.call(this, args[0], "127.0.0.1", callback);
  }
  return listen.apply(this, args);
};

const pds = await import("@atproto/pds");
const plc = await import("@did-plc/server");
const { Secp256k1Keypair } = await import("@atproto/crypto");
const { toString: bytesToString } = await import("uint8arrays");

function port(name) {
  const value = Number(process.env[name]);
  if (!Number.isInteger(value) || value <= 0) {
    console.error(`${name} must be a free port number, e.g. ${name}=2583`);
    process.exit(2);
  }
  return value;
}

const plcPort = port("PLC_PORT");
const pdsPort = port("PDS_PORT");
const dataDir = process.env.PDS_DATA;
if (!dataDir) {
  console.error("PDS_DATA must name an empty folder for the PDS's databases and blobs");
  process.exit(2);
}

const plcServer = plc.PlcServer.create({ db: plc.Database.mock(), port: plcPort });
await plcServer.start();

const rotation = await Secp256k1Keypair.create({ exportable: true });
const recovery = await Secp256k1Keypair.create();
const env = {
  devMode: true,
  hostname: "localhost",
  port: pdsPort,
  dataDirectory: dataDir,
  blobstoreDiskLocation: `${dataDir}/blobs`,
  recoveryDidKey: recovery.did(),
  adminPassword: "admin-pass",
  jwtSecret: "jwt-secret",
  serviceHandleDomains: [".test"],
  didPlcUrl: `http://127.0.0.1:${plcPort}`,
  // No app view, moderation service or CDN: the names are reserved (.invalid) and never answer.
  bskyAppViewUrl: "https://appview.invalid",
  bskyAppViewDid: "did:example:invalid",
  bskyAppViewCdnUrlPattern: "http://cdn.appview.invalid/%s/%s/%s",
  modServiceUrl: "https://moderator.invalid",
  modServiceDid: "did:example:invalid",
  plcRotationKeyK256PrivateKeyHex: bytesToString(await rotation.export(), "hex"),
  inviteRequired: false,
  disableSsrfProtection: true,
  serviceName: "possekit interop PDS",
  rateLimitsEnabled: process.env.PDS_RATE_LIMITS === "1",
};
const server = await pds.PDS.create(pds.envToCfg(env), pds.envToSecrets(env));
await server.start();

console.log(JSON.stringify({ pds: `http://127.0.0.1:${pdsPort}`, plc: `http://127.0.0.1:${plcPort}` }));

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await server.destroy().catch(() => {});
  await plcServer.destroy().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
