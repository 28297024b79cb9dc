import { QuoteType, Tokenizer } from 'htmlparser2';

/** The `href` of one `<a>` or `<area>` start tag, where it stands in the source and what it says. */
export interface LinkAttribute {
  /** Offsets of the value in the source, its quotes included. */
  start: number;
  end: number;
  /** The value as a browser reads it: character references decoded, ASCII whitespace trimmed from both ends. */
  url: string;
  /** The tag carries `data-mailroom-no-track`. */
  noTrack: boolean;
}

export interface HtmlLinks {
  links: LinkAttribute[];
  /** Offset of the `<` of the last `</body>`, or null when there is none. */
  lastBodyClose: number | null;
}

const LINK_TAGS = new Set(['a', 'area']);
const NO_TRACK = 'data-mailroom-no-track';
/**
 * Elements whose content browsers read as text: a tag inside them is no tag,
 * and `</body>` inside them no end of the body. The tokenizer reads the first
 * five so itself, but not after a self-closing `<script/>`, which browsers
 * take for an opening tag; `plaintext` never ends.
 */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);

const isHtmlSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;

/**
 * Where the links of a document stand, read with htmlparser2's tokenizer
 * (browser tokenization, linear, offsets into the source), so the caller can
 * replace exactly their values and nothing else. Comments (conditional ones
 * included) and raw-text elements are passed over as browsers pass over
 * them, CDATA up to its `]]>` (a browser ends it at the first `>`, so a link
 * between the two is left as it is rather than risk rewriting text); a tag
 * cut off by the end of the document counts for nothing, as in a browser.
 */
export function findLinks(html: string): HtmlLinks {
  const links: LinkAttribute[] = [];
  let lastBodyClose: number | null = null;

  let tagName = '';
  let inLinkTag = false;
  let attributeName = '';
  let attributeNameEnd = 0;
  let href: LinkAttribute | null = null;
  let readingHref = false;
  let hrefParts: string[] = [];
  let noTrack = false;
  /** The raw-text element we are inside, or null. */
  let rawText: string | null = null;

  const endStartTag = () => {
    if (inLinkTag && href) links.push({ ...href, noTrack });
    if (rawText === null && RAW_TEXT.has(tagName)) rawText = tagName;
    inLinkTag = false;
    href = null;
  };

  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname(start, end) {
        tagName = html.slice(start, end).toLowerCase();
        inLinkTag = rawText === null && LINK_TAGS.has(tagName);
        href = null;
        noTrack = false;
      },
      onattribname(start, end) {
        if (!inLinkTag) return;
        attributeName = html.slice(start, end).toLowerCase();
        attributeNameEnd = end;
        if (attributeName === NO_TRACK) noTrack = true;
        // Browsers keep the first of repeated attributes and drop the others.
        readingHref = attributeName === 'href' && href === null;
        hrefParts = [];
      },
      onattribdata(start, end) {
        if (readingHref) hrefParts.push(html.slice(start, end));
      },
      onattribentity(codepoint) {
        if (readingHref) hrefParts.push(String.fromCodePoint(codepoint));
      },
      onattribend(quote, end) {
        if (!readingHref) return;
        readingHref = false;
        const start = quote === QuoteType.NoValue ? end : valueStart(html, attributeNameEnd);
        href = { start, end, url: trimHtmlSpace(hrefParts.join('')), noTrack: false };
      },
      onopentagend: endStartTag,
      onselfclosingtag: endStartTag,
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        if (rawText !== null) {
          if (name === rawText && rawText !== 'plaintext') rawText = null;
          return;
        }
        // `</ body>` is no end tag to a browser, though the tokenizer reads one.
        if (name === 'body' && html.startsWith('</', start - 2)) lastBodyClose = start - 2;
      },
      oncdata() {},
      oncomment() {},
      ondeclaration() {},
      onend() {},
      onprocessinginstruction() {},
      ontext() {},
      ontextentity() {},
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return { links, lastBodyClose };
}

/** The offset of an attribute's value (its opening quote, if any): past the name, the `=` and the spaces around it. */
function valueStart(html: string, nameEnd: number): number {
  let at = nameEnd;
  while (isHtmlSpace(html.charCodeAt(at))) at++;
  at++; // the `=`
  while (isHtmlSpace(html.charCodeAt(at))) at++;
  return at;
}

function trimHtmlSpace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHtmlSpace(value.charCodeAt(start))) start++;
  while (end > start && isHtmlSpace(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}
