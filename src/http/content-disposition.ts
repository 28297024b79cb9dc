/**
 * RFC 5987's attr-char: what `filename*` may carry unencoded. Everything else,
 * quotes, semicolons, CR and LF included, is percent-encoded, so no file name
 * can end the header or add a parameter to it.
 */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;
/** What the plain `filename` fallback keeps: printable ASCII but `"`, `\` and `%` (which some browsers decode). */
const FALLBACK_CHAR = /[\x20-\x7e]/;
const FALLBACK_DROPPED = new Set(['"', '\\', '%']);

function encodeAttrValue(value: string): string {
  let encoded = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += byte < 0x80 && ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

function asciiFallback(value: string): string {
  return [...value].map((char) => (FALLBACK_CHAR.test(char) && !FALLBACK_DROPPED.has(char) ? char : '_')).join('');
}

/**
 * `Content-Disposition: attachment` naming `filename` (RFC 6266): the name as
 * UTF-8 in `filename*` (RFC 5987), which browsers prefer, and a quoted ASCII
 * stand-in in `filename` for those that do not read it.
 */
export function attachmentDisposition(filename: string): string {
  return `attachment; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeAttrValue(filename)}`;
}
