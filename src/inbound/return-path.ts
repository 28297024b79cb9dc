import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed return paths (BATV/SRS-style): each recipient of a message is sent
 * from an envelope sender of its own,
 *
 *   bounce+<message id>.<recipient index>.<day>.<tag>@<return-path domain>
 *
 * where the index is the recipient's place in the message's recipients, the
 * day the one it was signed on (days since 1970, base 36) and the tag an
 * HMAC-SHA256 of the three under the installation's key. A report that comes back to
 * it may speak for that recipient of that message and no other: a recipient
 * who takes the return path from her own copy and sends a forged bounce to it
 * can only bounce herself. An address that is not signed, whose tag does not
 * match, or that is older than RETURN_PATH_TTL_DAYS is refused.
 *
 * Tag length: 16 base-32 characters, 80 bits. The tag can only be guessed
 * online, each guess an SMTP transaction that the receiver refuses at RCPT:
 * at a million guesses a second, finding one would take 19 billion years on
 * average. (BATV's prvs= uses 24 bits; SRS's default hash 20.) Base 32 in
 * lower case survives MTAs that fold the local part's case, and the whole
 * local part stays within RFC 5321's 64 octets: 7 + 30 + 1 + 2 + 1 + 3 + 1 + 16 = 61.
 */

export const RETURN_PATH_TTL_DAYS = 30;
const TAG_CHARACTERS = 16;
const DAY_MS = 86_400_000;
/** A clock a little ahead elsewhere (another process signed it) is not a forgery. */
const FUTURE_DAYS_ALLOWED = 1;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

const SIGNED = /^bounce\+(msg_[0-9a-z]{26})\.(\d{1,3})\.([0-9a-z]{1,5})\.([a-z2-7]{16})@([^@\s]+)$/;
const ANY_RETURN_PATH = /^bounce\+[^@\s]*@[^@\s]+$/;

export interface ReturnPathTarget {
  messageId: string;
  /** The recipient's index in the message's recipients. */
  recipientIndex: number;
}

export type ReturnPathCheck = ({ ok: true } & ReturnPathTarget) | { ok: false; reason: string };

function base32(bytes: Buffer, characters: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < characters) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === characters) break;
  }
  return out;
}

/** Whether an address has the form of a Mailroom return path at all (signed or not). */
export function looksLikeReturnPath(address: string): boolean {
  return ANY_RETURN_PATH.test(address.trim().replace(/^<|>$/g, '').toLowerCase());
}

export interface ReturnPathSigner {
  /** The envelope sender for one recipient of one message. */
  sign(messageId: string, recipientIndex: number, returnPathDomain: string, now?: number): string;
  /** What a return path may speak for, or why it may not. */
  verify(address: string, now?: number): ReturnPathCheck;
}

/** `keys`: the installation's return-path keys (return-path-key.ts); the first signs, any of them checks. */
export function createReturnPathSigner(keys: Buffer[]): ReturnPathSigner {
  if (keys.length === 0) throw new Error('A return-path signer needs a key');
  const tagOf = (key: Buffer, messageId: string, index: number, day: string) =>
    base32(createHmac('sha256', key).update(`${messageId}.${index}.${day}`).digest(), TAG_CHARACTERS);

  return {
    sign(messageId, recipientIndex, returnPathDomain, now = Date.now()) {
      const day = Math.floor(now / DAY_MS).toString(36);
      return `bounce+${messageId}.${recipientIndex}.${day}.${tagOf(keys[0]!, messageId, recipientIndex, day)}@${returnPathDomain}`;
    },

    verify(address, now = Date.now()) {
      const lower = address.trim().replace(/^<|>$/g, '').toLowerCase();
      const match = SIGNED.exec(lower);
      if (!match) return { ok: false, reason: looksLikeReturnPath(lower) ? 'the return path is not signed' : 'not a return path' };
      const [, messageId, index, day, tag] = match as unknown as [string, string, string, string, string];
      const matches = keys.some((key) => timingSafeEqual(Buffer.from(tagOf(key, messageId, Number(index), day)), Buffer.from(tag)));
      if (!matches) return { ok: false, reason: "the return path's tag does not match" };
      const age = Math.floor(now / DAY_MS) - parseInt(day, 36);
      if (age > RETURN_PATH_TTL_DAYS) return { ok: false, reason: `the return path expired (signed ${age} days ago; valid for ${RETURN_PATH_TTL_DAYS})` };
      if (age < -FUTURE_DAYS_ALLOWED) return { ok: false, reason: 'the return path is dated in the future' };
      return { ok: true, messageId, recipientIndex: Number(index) };
    },
  };
}
