// Seals the secrets of connected accounts (access tokens, app passwords, client secrets) before they
// reach the database, and opens them again. AES-256-GCM with a random 96-bit nonce per value; the
// associated data names the account and the field, so a value copied into another row or field
// does not open. Each sealed value names the key it was sealed with, so that a rotated key's values
// still open (ACCOUNT_SECRETS_OLD_KEYS) until `possekit rekey` seals them again under the new one.
//
//   const { current, old } = loadAccountKeys(process.env, dataDir);
//   const box = new SecretBox(current, old);
//   const sealed = box.seal("token", "account:42/accessToken"); // "v1.3f9a0c21.<nonce|tag|ciphertext>"
//   box.open(sealed, "account:42/accessToken");                   // "token"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../contract/config-error.ts";
import { keptSecret } from "../config/kept-secret.ts";

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The environment variable holding the key, and the one holding keys it replaced. */
export const KEY_VARIABLE = "ACCOUNT_SECRETS_KEY";
export const OLD_KEYS_VARIABLE = "ACCOUNT_SECRETS_OLD_KEYS";
/** The file in the data folder where a key is generated once when the environment names none. */
export const KEY_FILE = "account-secrets-key";

/** A sealed value that does not open: tampered with, sealed for another field, or under an unknown key. */
export class SecretBoxError extends Error {}

/** A key's public name: its first 8 bytes of SHA-256, in hex. Tells keys apart without revealing one. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("possekit account secrets key\0").update(key).digest("hex").slice(0, 8);
}

/** A key as written in the environment or the key file: 32 bytes in base64, base64url or hex. */
export function parseKey(text: string, where: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : Buffer.from(trimmed, "base64url");
  if (key.length !== KEY_BYTES)
    throw new ConfigError([
      `${where}: must be 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)`,
    ]);
  return key;
}

export class SecretBox {
  readonly #keys = new Map<string, Buffer>();
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;

  /** `current` seals and opens; `old` only open what they sealed before a rotation. */
  constructor(current: Buffer, old: readonly Buffer[] = []) {
    this.currentKeyId = keyIdOf(current);
    this.#keys.set(this.currentKeyId, current);
    for (const key of old) if (!this.#keys.has(keyIdOf(key))) this.#keys.set(keyIdOf(key), key);
  }

  /** `associatedData` must be given again, the same, to open the value. */
  seal(plaintext: string, associatedData: string): string {
    const key = this.#keys.get(this.currentKeyId) as Buffer;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(Buffer.from(associatedData, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const sealed = Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString("base64url");
    return `${VERSION}.${this.currentKeyId}.${sealed}`;
  }

  open(sealed: string, associatedData: string): string {
    const [version, keyId, body, ...rest] = sealed.split(".");
    if (version !== VERSION || !keyId || body === undefined || rest.length > 0)
      throw new SecretBoxError("A stored secret is not in the sealed form possekit writes");
    const key = this.#keys.get(keyId);
    if (!key)
      throw new SecretBoxError(
        `A stored secret was sealed with key ${keyId}, which is not given: set ${KEY_VARIABLE} to it (or add it to ${OLD_KEYS_VARIABLE}), restore ${KEY_FILE} into the data folder, or connect the account again`,
      );
    const bytes = Buffer.from(body, "base64url");
    if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError("A stored secret is cut short");
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(associatedData, "utf8"));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretBoxError("A stored secret does not open: it was changed, or belongs to another field");
    }
  }

  isSealed(value: string): boolean {
    const [version, keyId, body, ...rest] = value.split(".");
    return version === VERSION && Boolean(keyId) && body !== undefined && rest.length === 0;
  }

  isCurrent(sealed: string): boolean {
    return SecretBox.keyIdOf(sealed) === this.currentKeyId;
  }

  /** The key id a sealed value names (without opening it). */
  static keyIdOf(sealed: string): string | undefined {
    return sealed.split(".")[1];
  }
}

/** The keys a server seals and opens account secrets with (HostConfig.secrets.accountKeys). */
export interface AccountKeys {
  current: Buffer;
  /** Keys that only open what they sealed before a rotation. */
  old: Buffer[];
}

/**
 * The keys for this server: ACCOUNT_SECRETS_KEY, else one generated once into the data folder
 * (mode 0600, like the generated password). A generated key that the environment has since
 * replaced still opens what it sealed, as do the keys in ACCOUNT_SECRETS_OLD_KEYS (comma-separated).
 */
export function loadAccountKeys(env: NodeJS.ProcessEnv, dataDir: string): AccountKeys {
  return accountKeysFrom(env, dataDir)();
}

/**
 * The environment's keys checked now (a mistake stops the start, naming the variable); the data
 * folder is read, and a key generated there, only when the keys are first needed: a command that
 * opens no accounts writes nothing.
 */
export function accountKeysFrom(env: NodeJS.ProcessEnv, dataDir: string): () => AccountKeys {
  const old = (env[OLD_KEYS_VARIABLE] ?? "")
    .split(",")
    .map((text) => text.trim())
    .filter((text) => text !== "")
    .map((text) => parseKey(text, OLD_KEYS_VARIABLE));
  const given = env[KEY_VARIABLE] ? parseKey(env[KEY_VARIABLE], KEY_VARIABLE) : undefined;
  let keys: AccountKeys | undefined;
  return () => {
    if (keys) return keys;
    if (given) {
      const file = keptKeyIfAny(dataDir);
      keys = { current: given, old: file ? [...old, file] : old };
    } else {
      const kept = keptSecret(dataDir, KEY_FILE, () => randomBytes(KEY_BYTES).toString("base64url"));
      keys = { current: parseKey(kept.value, join(dataDir, KEY_FILE)), old };
    }
    return keys;
  };
}

function keptKeyIfAny(dataDir: string): Buffer | undefined {
  const path = join(dataDir, KEY_FILE);
  return existsSync(path) ? parseKey(readFileSync(path, "utf8"), path) : undefined;
}
