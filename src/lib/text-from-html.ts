import { convert } from 'html-to-text';

/**
 * Past these, html-to-text's tree is cut rather than walked: its recursion overflows the stack on a few
 * thousand nested elements (a RangeError, not a text), and its time grows with the input. Real mail is
 * far inside both (Gmail clips a message at 102 KB).
 */
const LIMITS = { maxDepth: 100, maxInputLength: 1024 * 1024 };

/**
 * The text part of an HTML-only message, so that text-only readers and spam filters (which score HTML
 * without text) get one: links keep their address, images are left out. The same conversion for a send
 * built by the delivery worker and a template's preview, so a preview shows the text that is sent.
 */
export function textFromHtml(html: string): string {
  return convert(html, { wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }], limits: LIMITS });
}
