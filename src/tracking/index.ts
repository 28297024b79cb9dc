/** Open and click tracking: an HTML body's links and open pixel rewritten, and which opens and clicks a machine made. */
export { rewriteHtml, type RewriteOptions, type RewriteResult } from './html-rewriter.js';
