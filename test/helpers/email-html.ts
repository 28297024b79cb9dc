import fc from 'fast-check';

/**
 * HTML e-mail bodies made of pieces whose reading is known: links that must
 * be tracked (their original URL and their value's source text apart) and
 * filler that must come through as written, every piece complete so that
 * none changes how the next is read.
 */

/** A link tag split around its href value: `before + value + after`, which a browser reads as `url`. */
export interface TrackedLink {
  kind: 'link';
  before: string;
  value: string;
  after: string;
  quote: '"' | "'" | '';
  url: string;
}
export interface Filler {
  kind: 'filler';
  text: string;
}
export type Piece = TrackedLink | Filler;

export const UNSUBSCRIBE = 'https://unsub.example/u?list=7&token=a%20b';

/** Pieces that hold links or link-like text a browser does not follow, or that must not be rewritten. */
export const TRICKY_FILLERS = [
  '<table role="presentation" cellpadding="0" cellspacing="0" style="width:100%;border:0"><tr><td align="center">',
  '</td></tr></table>',
  '<!--[if mso]><v:roundrect href="http://mso.example/" style="height:40px"><a href="http://mso.example/">Go</a></v:roundrect><![endif]-->',
  '<!--[if !mso]><!-->',
  '<!--<![endif]-->',
  '<!-- <a href="http://comment.example/"> -->',
  '<script>document.write(\'<a href="http://script.example/">\')</script>',
  '<SCRIPT type="text/javascript">if (a<b) { x = "<a href=http://script2.example>"; }</SCRIPT>',
  '<style>a[href^="http://"] { color: #1a73e8; } @media (max-width:600px){ .x{width:100%!important} }</style>',
  '<![CDATA[<a href="http://cdata.example/">]]>',
  '<title><a href="http://title.example/"></title>',
  '<textarea><a href="http://textarea.example/"></textarea>',
  '<a href="mailto:help@shop.example?subject=Order%20123">mail us</a>',
  '<a href="tel:+15551234567">call</a>',
  '<a href="/account">relative</a>',
  '<a href="#top">anchor</a>',
  '<a href="//cdn.example/x">protocol-relative</a>',
  '<a href="javascript:void(0)">js</a>',
  '<a href="ftp://files.example/a">ftp</a>',
  '<a>no href</a>',
  '<a href>empty href</a>',
  '<a data-mailroom-no-track href="https://keep.example/a?b=1&amp;c=2">kept</a>',
  '<a href="https://keep.example/b" DATA-Mailroom-No-Track="yes">kept</a>',
  `<a href="${UNSUBSCRIBE.replaceAll('&', '&amp;')}">unsubscribe</a>`,
  '<img src="http://img.example/logo.png" alt="Logo" width="120" style="display:block">',
  '<link rel="stylesheet" href="http://css.example/a.css">',
  '<base href="https://base.example/">',
  '<p style="margin:0;font-family:Arial,sans-serif">Total: 5 &lt; 6 &amp; &euro;10 &nbsp;</p>',
  '<br/>',
  '\n',
];

const PLAIN_TEXT = fc.string({ maxLength: 30 }).map((text) => text.replaceAll('<', ' '));
const filler: fc.Arbitrary<Filler> = fc
  .oneof({ weight: 3, arbitrary: fc.constantFrom(...TRICKY_FILLERS) }, { weight: 1, arbitrary: PLAIN_TEXT })
  .map((text) => ({ kind: 'filler', text }));

const URL_CHARS = fc.constantFrom(...'abcXYZ019-._~/?=&%#+:@!$,;'.split(''), '&', '"', "'", 'é', ' ');
const AMP_SPELLINGS = ['&amp;', '&#38;', '&#x26;', '&AMP;'];

/** A URL as the browser reads it, and its spelling in an attribute value quoted with `quote`. */
const urlAndValue = (quote: '"' | "'" | '') =>
  fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTP', 'Https'),
      host: fc.constantFrom('shop.example', 'a.b.example', 'x.example:8443'),
      rest: fc.array(URL_CHARS, { maxLength: 24 }),
      amp: fc.constantFrom(...AMP_SPELLINGS),
      padding: fc.constantFrom('', ' ', '\n  ', '\t'),
    })
    .map(({ scheme, host, rest, amp, padding }) => {
      const chars = quote === '' ? rest.filter((c) => !`"' `.includes(c)) : rest;
      const url = `${scheme}://${host}/${chars.join('').trim()}`;
      const spelled = [...url].map((c) => (c === '&' ? amp : c === '"' && quote === '"' ? '&quot;' : c === "'" && quote === "'" ? '&#39;' : c)).join('');
      return { url, value: quote === '' ? spelled : `${quote}${padding}${spelled}${padding}${quote}` };
    });

const OTHER_ATTRIBUTES = fc.constantFrom('', ' class="button"', " style='color:#ffffff;text-decoration:none'", ' target=_blank', ' title="Tom &amp; Jerry"', ' rel="noopener"');

const link: fc.Arbitrary<TrackedLink> = fc
  .record({
    tag: fc.constantFrom('a', 'A', 'area'),
    name: fc.constantFrom('href', 'HREF', 'Href'),
    equals: fc.constantFrom('=', ' = ', '\n=\n'),
    quote: fc.constantFrom<'"' | "'" | ''>('"', "'", ''),
    first: OTHER_ATTRIBUTES,
    last: OTHER_ATTRIBUTES,
  })
  .chain((parts) => urlAndValue(parts.quote).map((target) => ({ ...parts, ...target })))
  .map(({ tag, name, equals, quote, first, last, url, value }) => ({
    kind: 'link',
    before: `<${tag}${first} ${name}${equals}`,
    value,
    // An unquoted value runs to the next space or `>`, so what follows it starts with one.
    after: `${quote === '' && last === '' ? ' ' : ''}${last}>${tag === 'area' ? '' : `Link</${tag}>`}`,
    quote,
    url,
  }));

/** A document of links and filler, in any order. */
export const emailPieces: fc.Arbitrary<Piece[]> = fc.array(fc.oneof({ weight: 1, arbitrary: link }, { weight: 2, arbitrary: filler }), { maxLength: 25 });

/** Pieces run together, filler cut anywhere: documents no author meant, malformed ones among them. */
export const htmlSoup: fc.Arbitrary<string> = fc
  .array(fc.oneof(link.map((l) => l.before + l.value + l.after), filler.map((f) => f.text), fc.string({ maxLength: 12 })), { maxLength: 20 })
  .chain((texts) => fc.nat({ max: Math.max(0, texts.join('').length) }).map((cut) => texts.join('').slice(0, cut)));
