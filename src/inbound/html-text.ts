/**
 * The text of an HTML part, for a report that has no plain-text part: tags
 * dropped (a line break for those that end a line or a block), scripts,
 * styles and comments left out, the common character references decoded.
 * One pass over the markup: mailparser's own conversion (html-to-text) takes
 * some 17 s for 1 MB of nested tags, and a report's readers need its words, not
 * its layout.
 */

const LINE_BREAKING = /^\/?(?:br|p|div|tr|li|h[1-6]|table|ul|ol|blockquote|pre|hr)$/i;
const SKIPPED = new Set(['script', 'style', 'head', 'title']);
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeReferences(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,5}));/gi, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name.toLowerCase()] ?? whole;
    const code = decimal ? Number(decimal) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

export function htmlText(html: string): string {
  const lower = html.toLowerCase();
  const pieces: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      pieces.push(html.slice(at));
      break;
    }
    pieces.push(html.slice(at, open));
    if (lower.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    const close = html.indexOf('>', open + 1);
    if (close === -1) {
      pieces.push(html.slice(open));
      break;
    }
    const name = /^\/?[a-z0-9]*/i.exec(html.slice(open + 1, Math.min(close, open + 12)))![0].toLowerCase();
    if (SKIPPED.has(name)) {
      const end = lower.indexOf(`</${name}`, close + 1);
      const after = end === -1 ? -1 : html.indexOf('>', end);
      at = after === -1 ? html.length : after + 1;
      continue;
    }
    if (LINE_BREAKING.test(name)) pieces.push('\n');
    at = close + 1;
  }
  return decodeReferences(pieces.join(''));
}
