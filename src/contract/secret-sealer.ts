// What a plug-in is lent to keep its own secrets sealed at rest (Server.secretSealer); a module of
// its own so the server's type and the account flows both take it without importing each other.

/** Seals a secret before it is stored, and opens it (the host's AES-256-GCM secret box). */
export interface SecretSealer {
  /** `associatedData` names what the value is for: it opens only for the same. */
  seal(plaintext: string, associatedData: string): string;
  open(sealed: string, associatedData: string): string;
  /** Whether a stored value is in the sealed form (else it was stored in clear, before sealing). */
  isSealed(value: string): boolean;
  /** Whether a sealed value is under the key new values are sealed with (else rekey seals it again). */
  isCurrent(sealed: string): boolean;
}
