import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

/**
 * Secrets at rest (DKIM private keys, webhook signing secrets, the
 * return-path key), stored as `enc:v1:<base64 of nonce | ciphertext | tag>`:
 * AES-256-GCM under the installation's key (MAILROOM_SECRET_KEY, or the data
 * dir's key file: secrets/secret-key.ts) with a random 96-bit nonce. Opening
 * also accepts a value stored as it is, as versions before the key was always
 * there stored them; start-up seals those (secrets/secret-key.ts).
 */
export const SEALED_PREFIX = 'enc:v1:';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';
/** What a box holds: its name in messages, and the associated data that binds each ciphertext to that use. */
export interface SecretPurpose {
  /** `webhook secret`: as in "A stored webhook secret is damaged". */
  name: string;
  /** Binds each ciphertext to its use, so it cannot pass for something else sealed under the same key. */
  associatedData: string;
}

export const WEBHOOK_SECRET: SecretPurpose = { name: 'webhook secret', associatedData: 'mailroom webhook secret v1' };
export const DKIM_PRIVATE_KEY: SecretPurpose = { name: 'DKIM private key', associatedData: 'mailroom dkim private key v1' };
export const RETURN_PATH_KEY: SecretPurpose = { name: 'return-path key', associatedData: 'mailroom return-path key v1' };
export const UPSTREAM_CREDENTIAL: SecretPurpose = { name: 'upstream credential', associatedData: 'mailroom upstream credential v1' };
/** A known text sealed under the key, by which a start tells the right key from a wrong one before using it. */
export const KEY_CHECK: SecretPurpose = { name: 'key check', associatedData: 'mailroom secret key check v1' };

/** A stored secret that cannot be opened. Its message names the cause and never contains the secret. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface SecretBox {
  /** Whether `seal` encrypts (a key is set). */
  readonly encrypts: boolean;
  /** The value to store for `secret`. */
  seal(secret: string): string;
  /** The secret a stored value stands for; throws SecretBoxError when it cannot be decrypted. */
  open(stored: string): string;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/** `key` is MAILROOM_SECRET_KEY as config.ts reads it (32 bytes), or undefined when it is not set. */
export function createSecretBox(key: KeyObject | undefined, purpose: SecretPurpose = WEBHOOK_SECRET): SecretBox {
  if (key && key.symmetricKeySize !== 32) throw new SecretBoxError('MAILROOM_SECRET_KEY must be 32 bytes');
  const associatedData = Buffer.from(purpose.associatedData);
  return {
    encrypts: key !== undefined,

    seal(secret) {
      if (!key) return secret;
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(associatedData);
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64')}`;
    },

    open(stored) {
      if (!isSealed(stored)) return stored;
      if (!key) {
        throw new SecretBoxError(`A ${purpose.name} is stored encrypted, but MAILROOM_SECRET_KEY is not set: set it to the key it was encrypted with`);
      }
      const sealed = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64');
      if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError(`A stored ${purpose.name} is damaged: too short to be an encrypted value`);
      const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(
          `A stored ${purpose.name} could not be decrypted with MAILROOM_SECRET_KEY: it was encrypted with another key, or the stored value is damaged`,
        );
      }
    },
  };
}
