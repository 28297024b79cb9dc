import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How the dashboard shows a message's HTML: as a document of its own, framed
 * by the message page in an `<iframe sandbox>`, under a policy of its own.
 * Mail is written by whoever sends it, so it is treated as hostile: it may run
 * nothing, reach nothing of the dashboard, and load nothing remote until the
 * reader asks for images (`remoteImages`).
 */

/**
 * The frame's Content-Security-Policy. `sandbox` (no allow-* token) makes the
 * document an opaque origin that runs no script, submits no form and navigates
 * no other frame, even when its address is opened on its own rather than in
 * the page's sandboxed iframe; `default-src 'none'` refuses every load (frames,
 * fonts, stylesheets, media, prefetches) but inline styles and the images named;
 * `frame-ancestors 'self'` lets the dashboard frame it and no one else.
 */
export function mailHtmlPolicy(remoteImages: boolean): string {
  return [
    "default-src 'none'",
    `img-src data: cid:${remoteImages ? ' https: http:' : ''}`,
    "style-src 'unsafe-inline'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
    'sandbox',
  ].join('; ');
}

/**
 * The HTML with what a CSP cannot govern made inert:
 * - `<meta>`: `http-equiv=refresh` navigates the frame (to anywhere) whatever
 *   the policy, and `name=referrer` would loosen the Referrer-Policy of the
 *   images the reader lets load. The value can hide behind character
 *   references, so every meta element goes, not the ones that read "refresh".
 * - `<link>`: preconnect and dns-prefetch reach a host outside any fetch
 *   directive; nothing else a link does is allowed here anyway.
 * - `referrerpolicy` attributes: an image's own would override the header's
 *   no-referrer and tell its host the dashboard's address.
 * The tag and attribute names are matched as the HTML tokenizer reads them
 * (ASCII case-insensitive, a tag name ending at whitespace, `/` or `>`);
 * renaming them leaves unknown, inert elements and attributes. The same words
 * in text or comments are changed too: harmless, and simpler than parsing.
 */
export function inertMailHtml(html: string): string {
  return html
    .replace(/<(meta|link)(?=[\s/>])/gi, '<x-inert-$1')
    .replace(/referrerpolicy/gi, 'x-inert-referrerpolicy');
}

/**
 * An onRequest hook of a route answering such a document: set before anything else runs, so that every
 * answer, an error included, carries the frame's policy rather than the dashboard's. `remote_images=1`
 * in the query: the reader asked for the images the mail links to.
 */
export async function framePolicy(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { remote_images } = request.query as { remote_images?: unknown };
  reply.header('content-security-policy', mailHtmlPolicy(remote_images === '1'));
}
