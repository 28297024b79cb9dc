/** Open and click tracking: an HTML body's links and open pixel rewritten, and which opens and clicks a machine made. */
export { rewriteHtml, type RewriteOptions, type RewriteResult } from './html-rewriter.js';
export {
  classifyClick,
  classifyOpen,
  CLICK_RULES,
  OPEN_RULES,
  type ClickRequest,
  type ClickRule,
  type ClickVerdict,
  type OpenRequest,
  type OpenRule,
  type OpenVerdict,
} from './machine-rules.js';
