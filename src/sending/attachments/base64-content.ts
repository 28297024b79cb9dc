/**
 * Strict checking of an attachment's base64 `content` before it is decoded:
 * Node's decoder skips whatever is not base64 without a word, so a JSON
 * client that sent the wrong thing (a file path, hex, base64url) would get a
 * corrupt attachment delivered instead of a 400. Line breaks and spaces are
 * allowed (the `base64` tool wraps at 76 columns), as RFC 2045 decoders do.
 */

const OUTSIDE_ALPHABET = /[^A-Za-z0-9+/=\r\n\t ]/;
const WHITESPACE = /[\r\n\t ]/;
/** After the first `=`: at most two `=` in all, and nothing else but white space. */
const PADDING_TAIL = /^=[\r\n\t ]*(=[\r\n\t ]*)?$/;

/** Why a string is not base64, as the end of the sentence `… must be base64 (got …)`; null when it is. */
export type Base64Check = { ok: true; decodedBytes: number } | { ok: false; problem: string };

/**
 * Checks `value` and tells how many bytes it decodes to, without decoding it
 * (so a request over the size limit is refused before anything is allocated).
 */
export function checkBase64(value: string): Base64Check {
  if (OUTSIDE_ALPHABET.test(value)) return { ok: false, problem: 'a character outside the base64 alphabet' };
  const padAt = value.indexOf('=');
  if (padAt >= 0 && !PADDING_TAIL.test(value.slice(padAt))) return { ok: false, problem: '"=" padding before the end' };
  const padding = padAt < 0 ? 0 : countOf(value, padAt, '=');
  const data = (padAt < 0 ? value.length : padAt) - (WHITESPACE.test(value) ? whitespaceIn(value, padAt < 0 ? value.length : padAt) : 0);
  // 4 characters make 3 bytes; 1 left over is never valid, and padding must complete the last group.
  if (data % 4 === 1 || (padding > 0 && (data + padding) % 4 !== 0)) {
    return { ok: false, problem: 'a length that does not decode to whole bytes' };
  }
  return { ok: true, decodedBytes: Math.floor((data * 3) / 4) };
}

function countOf(value: string, from: number, char: string): number {
  let n = 0;
  for (let i = value.indexOf(char, from); i >= 0; i = value.indexOf(char, i + 1)) n++;
  return n;
}

function whitespaceIn(value: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c === 10 || c === 13 || c === 9 || c === 32) n++;
  }
  return n;
}

/**
 * Decodes checked base64 into bytes that own their whole ArrayBuffer, so they
 * can be transferred to another thread (a small Buffer is a slice of Node's
 * shared pool, which must never be transferred).
 */
export function decodeBase64(value: string): Buffer {
  return ownedBytes(Buffer.from(value, 'base64'));
}

/** `bytes` itself when it alone fills its ArrayBuffer; otherwise a copy that does. */
export function ownedBytes(bytes: Uint8Array): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) {
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, 0, bytes.byteLength);
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return Buffer.from(copy.buffer, 0, copy.byteLength);
}
