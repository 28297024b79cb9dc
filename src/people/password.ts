import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../lib/errors.js';
import { passwordHashing, ScryptRefusedError } from './password-hashing.js';

/** The shortest password accepted (issue 14; NIST SP 800-63B asks for at least 8). */
export const MIN_PASSWORD_LENGTH = 10;
/** The longest: scrypt takes any length, but a megabyte "password" is a way to make the server work, not a password. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * scrypt's cost: N = 2^15, r = 8, p = 3, one of OWASP's Password Storage
 * Cheat Sheet's equivalent settings. 32 MiB and about 190 ms per hash on the
 * 2-core machine Mailroom is measured on; OWASP's first setting (N = 2^17,
 * p = 1) takes 128 MiB per hash, which ten sign-ins at once would make 1.3
 * GB. Each hash records its own parameters, so raising them later leaves
 * existing hashes verifiable.
 */
const COST = { ln: 15, r: 8, p: 3 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Node refuses scrypt above 32 MiB by default; 128 · r · (N + p) bytes is what these parameters need. */
const MAX_MEMORY = 256 * 1024 * 1024;

/** On a hashing thread (password-hashing.ts), never the event loop's; a 429 when too many wait already. */
function scrypt(password: string, salt: Buffer, keyLength: number, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  return passwordHashing.scrypt(password.normalize('NFKC'), salt, keyLength, { ...cost, maxmem: MAX_MEMORY });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/(?<!=)=+$/, '');

/** The rule every new password meets, with the message a person reads. */
export function checkNewPassword(password: string, field = 'password'): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw new ValidationError(`${field} must be at least ${MIN_PASSWORD_LENGTH} characters long`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new ValidationError(`${field} must be at most ${MAX_PASSWORD_LENGTH} characters long`);
}

/** A password's hash in PHC string form: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64 without padding). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, { N: 2 ** COST.ln, r: COST.r, p: COST.p });
  return `$scrypt$ln=${COST.ln},r=${COST.r},p=${COST.p}$${b64(salt)}$${b64(key)}`;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * Whether `password` is the one `stored` was made from, compared in constant
 * time. A stored value that is not a hash this module made answers false
 * rather than throwing: a damaged row must not let anyone in, nor say why.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match || password.length > MAX_PASSWORD_LENGTH) return false;
  const [, ln, r, p, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64');
  if (expected.length < 16 || Number(ln) > 20) return false;
  try {
    const key = await scrypt(password, Buffer.from(salt!, 'base64'), expected.length, { N: 2 ** Number(ln), r: Number(r), p: Number(p) });
    return timingSafeEqual(key, expected);
  } catch (error) {
    if (error instanceof ScryptRefusedError) return false; // parameters scrypt refuses (a damaged row)
    throw error; // too many hashes waiting (429), or the hashing thread lost (503)
  }
}
