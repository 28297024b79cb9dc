/**
 * Where JSON text first goes wrong, found by a scanner of JSON's grammar (RFC 8259): JSON.parse's own
 * messages differ from one Node version to the next, give no position for some mistakes, and quote the
 * text around the mistake (a body may hold secrets). Iterative, so a body nested a million deep does not
 * overflow the stack; called only once JSON.parse has refused the text.
 */

export interface JsonErrorPosition {
  /** The offset of the first character that cannot be there, or the text's length when it ends too soon. */
  offset: number;
  /** 1-based, counted in lines of the text and UTF-16 code units within the line. */
  line: number;
  column: number;
  /** The character found there; undefined at the end of the text. */
  found: string | undefined;
}

type State = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'after-value' | 'done';

const isWhitespace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u']);

/** The end of the string starting at `at` (its opening quote), or the offset of its mistake as a negative number less one. */
function scanString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c.charCodeAt(0) < 0x20) return -i - 1;
    if (c !== '\\') continue;
    const escape = text[++i];
    if (escape === undefined || !ESCAPES.has(escape)) return -i - 1;
    if (escape === 'u') {
      for (let k = 0; k < 4; k++) if (!isHex(text[++i])) return -i - 1;
    }
  }
  return -text.length - 1;
}

/** The end of the number starting at `at`, or its mistake's offset as a negative number less one. */
function scanNumber(text: string, at: number): number {
  let i = at;
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return -i - 1;
  if (text[i] === '.') {
    if (!isDigit(text[++i])) return -i - 1;
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    if (text[++i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return -i - 1;
    while (isDigit(text[i])) i++;
  }
  return i;
}

/** The end of `true`, `false` or `null` at `at`, or the offset of the first character that departs from it, negative less one. */
function scanLiteral(text: string, at: number): number {
  const literal = { t: 'true', f: 'false', n: 'null' }[text[at]!]!;
  for (let k = 1; k < literal.length; k++) if (text[at + k] !== literal[k]) return -(at + k) - 1;
  return at + literal.length;
}

/** The offset at which `text` stops being JSON; undefined when it is JSON after all (a BOM before it is let pass, as the body parser does). */
function firstErrorOffset(text: string): number | undefined {
  const open: string[] = [];
  let state: State = 'value';
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const afterValue = (): State => (open.length > 0 ? 'after-value' : 'done');
  for (;;) {
    while (isWhitespace(text[i])) i++;
    const c = text[i];
    if (c === undefined) return state === 'done' ? undefined : i;
    if (state === 'done') return i;
    if (state === 'colon') {
      if (c !== ':') return i;
      [i, state] = [i + 1, 'value'];
    } else if (state === 'after-value') {
      const closes = open.at(-1) === '{' ? '}' : ']';
      if (c === ',') [i, state] = [i + 1, open.at(-1) === '{' ? 'key' : 'value'];
      else if (c === closes) [i, state] = [i + 1, (open.pop(), afterValue())];
      else return i;
    } else if ((state === 'key-or-close' && c === '}') || (state === 'value-or-close' && c === ']')) {
      [i, state] = [i + 1, (open.pop(), afterValue())];
    } else if (state === 'key' || state === 'key-or-close') {
      if (c !== '"') return i;
      const end = scanString(text, i);
      if (end < 0) return -end - 1;
      [i, state] = [end, 'colon'];
    } else if (c === '{' || c === '[') {
      open.push(c);
      [i, state] = [i + 1, c === '{' ? 'key-or-close' : 'value-or-close'];
    } else {
      const end = c === '"' ? scanString(text, i) : c === '-' || isDigit(c) ? scanNumber(text, i) : c === 't' || c === 'f' || c === 'n' ? scanLiteral(text, i) : -i - 1;
      if (end < 0) return -end - 1;
      [i, state] = [end, afterValue()];
    }
  }
}

/** Where `text` first stops being JSON, or undefined when it is JSON. */
export function jsonErrorPosition(text: string): JsonErrorPosition | undefined {
  const offset = firstErrorOffset(text);
  if (offset === undefined) return undefined;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return { offset, line, column: offset - lineStart + 1, found: text[offset] };
}

/** The mistake in words, for an error message: never more of the text than the one character found. */
export function describeJsonError({ line, column, found }: JsonErrorPosition): string {
  const where = `at line ${line}, column ${column}`;
  if (found === undefined) return `it ends too soon, ${where}`;
  const code = found.charCodeAt(0);
  const shown = code > 0x20 && code < 0x7f ? `'${found}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `unexpected ${shown} ${where}`;
}
