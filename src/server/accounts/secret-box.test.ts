// The sealed form of an account's secrets: AES-256-GCM under a named key, bound to its account and
// field; a changed byte, another field or an unknown key does not open, and a rotated key's values do.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import type { ConfigError } from "../../contract/config-error.ts";
import { keyIdOf, parseKey, SecretBox, SecretBoxError } from "./secret-box.ts";

const SECRET = "app-password-abcd-efgh-ijkl";
const AAD = "connected-account:1/password";

describe("the secret box", () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it("seals under a random nonce, names its key, and opens with the same associated data", () => {
    const first = box.seal(SECRET, AAD);
    const second = box.seal(SECRET, AAD);
    assert.notEqual(first, second, "each value gets its own nonce");
    assert.ok(!first.includes(SECRET) && !Buffer.from(first).includes(Buffer.from(SECRET)));
    assert.equal(SecretBox.keyIdOf(first), keyIdOf(key));
    assert.equal(box.open(first, AAD), SECRET);
  });

  it("refuses a value with any one byte of its nonce, tag or ciphertext flipped", () => {
    const sealed = box.seal(SECRET, AAD);
    const [version, id, body] = sealed.split(".") as [string, string, string];
    const bytes = Buffer.from(body, "base64url");
    for (const at of [0, 12, 28, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] as number) ^ 0x01;
      assert.throws(() => box.open(`${version}.${id}.${flipped.toString("base64url")}`, AAD), SecretBoxError);
    }
  });

  it("refuses a value moved to another account or field", () => {
    const sealed = box.seal(SECRET, AAD);
    assert.throws(() => box.open(sealed, "connected-account:2/password"), SecretBoxError);
    assert.throws(() => box.open(sealed, "connected-account:1/accessToken"), SecretBoxError);
  });

  it("opens what a rotated key sealed while that key is among the old ones, and only then", () => {
    const newKey = randomBytes(32);
    const sealedBefore = box.seal(SECRET, AAD);
    const rotated = new SecretBox(newKey, [key]);
    assert.equal(rotated.open(sealedBefore, AAD), SECRET);
    assert.equal(SecretBox.keyIdOf(rotated.seal(SECRET, AAD)), keyIdOf(newKey));
    const forgotten = new SecretBox(newKey);
    assert.throws(
      () => forgotten.open(sealedBefore, AAD),
      (error: Error) => error instanceof SecretBoxError && error.message.includes(keyIdOf(key)),
    );
  });

  it("reads a key in base64, base64url or hex, and names the variable for anything else", () => {
    const raw = randomBytes(32);
    for (const text of [raw.toString("base64"), raw.toString("base64url"), raw.toString("hex")])
      assert.deepEqual(parseKey(text, "ACCOUNT_SECRETS_KEY"), raw);
    assert.throws(
      () => parseKey("too-short", "ACCOUNT_SECRETS_KEY"),
      (error: ConfigError) =>
        error.problems[0]?.startsWith("ACCOUNT_SECRETS_KEY: must be 32 random bytes") === true,
    );
  });
});
