import { findLinks, type LinkAttribute } from './html-links.js';

export interface RewriteOptions {
  /** Rewrite http(s) links to tracked ones. */
  clicks: boolean;
  /** Add the open pixel. */
  opens: boolean;
  /** The tracked address of link number n (1-based, in document order of rewritten links). */
  clickUrl(n: number): string;
  /** The open pixel's address. */
  pixelUrl: string;
  /** Targets never rewritten (the message's List-Unsubscribe URLs), compared exactly after HTML entity decoding. */
  untracked: ReadonlySet<string>;
}

export interface RewriteResult {
  html: string;
  /** Original URLs of rewritten links, index 0 = link number 1. */
  links: string[];
}

/**
 * Tracks an HTML body: its absolute http(s) links lead through `clickUrl`,
 * and an open pixel goes before its last `</body>` (or at its end). Only the
 * rewritten attribute values change, and the pixel is added: every other byte
 * stays as written, so what the author tested in mail clients is what is sent.
 * Relative links are left alone whatever `<base href>` says, since only an
 * absolute address can be followed from the tracked one.
 */
export function rewriteHtml(html: string, options: RewriteOptions): RewriteResult {
  if (!options.clicks && !options.opens) return { html, links: [] };
  const found = findLinks(html);
  const parts: string[] = [];
  const links: string[] = [];
  let copied = 0;
  const copyTo = (offset: number) => {
    parts.push(html.slice(copied, offset));
    copied = offset;
  };

  // `</body>` stands outside every tag, so the pixel's place is never inside a link's value.
  let pixelAt = options.opens ? (found.lastBodyClose ?? html.length) : Infinity;
  const insertPixelBefore = (offset: number) => {
    if (pixelAt > offset) return;
    copyTo(pixelAt);
    parts.push(`<img src="${escapeAttribute(options.pixelUrl, '"')}" alt="" width="1" height="1" style="display:none">`);
    pixelAt = Infinity;
  };

  for (const link of options.clicks ? found.links : []) {
    const target = trackedTarget(link, options.untracked);
    if (target === null) continue;
    insertPixelBefore(link.start);
    copyTo(link.start);
    links.push(target);
    parts.push(quoted(options.clickUrl(links.length), html.charCodeAt(link.start)));
    copied = link.end;
  }
  insertPixelBefore(html.length);
  copyTo(html.length);
  return { html: parts.join(''), links };
}

/** The address a link is tracked under, or null when it stays as it is. */
function trackedTarget(link: LinkAttribute, untracked: ReadonlySet<string>): string | null {
  if (link.noTrack) return null;
  // The URL parser drops tabs and newlines anywhere, so `ht\ntp:` is http too.
  if (!/^https?:/i.test(link.url.replace(/[\t\n\r]/g, ''))) return null;
  return untracked.has(link.url) ? null : link.url;
}

const SINGLE_QUOTE = 0x27;

/** A new attribute value in the quotes the old one had; an unquoted one gets double quotes, since any address can stand in them. */
function quoted(value: string, firstCode: number): string {
  const quote = firstCode === SINGLE_QUOTE ? "'" : '"';
  return `${quote}${escapeAttribute(value, quote)}${quote}`;
}

function escapeAttribute(value: string, quote: '"' | "'"): string {
  const escaped = value.replaceAll('&', '&amp;');
  return quote === '"' ? escaped.replaceAll('"', '&quot;') : escaped.replaceAll("'", '&#39;');
}
