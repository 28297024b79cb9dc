import { textFromHtml } from '../lib/text-from-html.js';
import { compileTemplate, RenderBudget, renderTemplate, type CompiledTemplate, type RenderValues } from './template-language.js';
import { LAYOUT_CONTENT_KEY, renderValues, type VariableDeclaration } from './template-variables.js';
import type { TemplateVersionRow } from './templates-repository.js';

/** A version's parts, parsed once: sends and previews reuse them until the version changes. */
interface CompiledVersion {
  subject: CompiledTemplate | undefined;
  html: CompiledTemplate;
  text: CompiledTemplate | undefined;
  declarations: VariableDeclaration[];
  /** Its sources' length, what it is counted as against CACHE_BYTES. */
  size: number;
}

export interface RenderedMessage {
  subject: string | null;
  html: string;
  /** Null for a send of a template without text: the text part is made from the HTML when the message is built. */
  text: string | null;
}

/**
 * A send leaves a template's missing text to the delivery worker's builder thread, as any send of HTML alone
 * (html-to-text takes milliseconds per 10 KB, far more than the render, and seconds on hostile nesting); a
 * preview makes it here with the same conversion, to show it.
 */
export type RenderPurpose = 'send' | 'preview';

/**
 * Versions kept compiled at most, and their sources' bytes at most (the least recently used is dropped
 * first): a version's source may be 512 KB a part, so a count alone would let the cache hold gigabytes.
 */
const CACHE_SIZE = 1000;
const CACHE_BYTES = 8 * 1024 * 1024;

/** Compiles versions once (keyed by id and last change: a published version never changes, a draft may) and renders them. */
export function createTemplateRenderer() {
  const cache = new Map<string, CompiledVersion>();
  let cachedBytes = 0;

  function compiled(version: TemplateVersionRow): CompiledVersion {
    const key = `${version.id}@${version.updated_at}`;
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    // Saved content parsed once already, at save: it cannot fail here.
    const made: CompiledVersion = {
      subject: version.subject === null ? undefined : compileTemplate('subject', version.subject),
      html: compileTemplate('html', version.html),
      text: version.text === null ? undefined : compileTemplate('text', version.text),
      declarations: JSON.parse(version.variables) as VariableDeclaration[],
      size: (version.subject?.length ?? 0) + version.html.length + (version.text?.length ?? 0),
    };
    cache.set(key, made);
    cachedBytes += made.size;
    while (cache.size > CACHE_SIZE || (cachedBytes > CACHE_BYTES && cache.size > 1)) {
      const [oldest, entry] = cache.entries().next().value!;
      cache.delete(oldest);
      cachedBytes -= entry.size;
    }
    return made;
  }

  /** A layout's values: its own declared keys from the template's values or their fallbacks, and the content raw. */
  function layoutValues(layout: CompiledVersion, values: RenderValues, content: string): RenderValues {
    const result: Record<string, string | number> = Object.create(null);
    for (const { key, fallback_value } of layout.declarations) {
      const value = Object.hasOwn(values, key) ? values[key] : fallback_value;
      if (value !== undefined && value !== null) result[key] = value;
    }
    result[LAYOUT_CONTENT_KEY] = content;
    return result;
  }

  return {
    /**
     * Renders `version` (wrapped in `layout` when it has one) with the caller's variables, checked against the
     * declaration first (a 400 naming every problem); a render past a bound throws RenderLimitError.
     */
    render(version: TemplateVersionRow, layout: TemplateVersionRow | undefined, given: Record<string, unknown> | undefined, purpose: RenderPurpose): RenderedMessage {
      const parts = compiled(version);
      const values = renderValues(parts.declarations, given);
      const budget = new RenderBudget();
      const subject = parts.subject ? renderTemplate(parts.subject, values, budget, 'plain') : null;
      let html = renderTemplate(parts.html, values, budget, 'html');
      if (layout) {
        const frame = compiled(layout);
        html = renderTemplate(frame.html, layoutValues(frame, values, html), budget, 'html');
      }
      if (parts.text) return { subject, html, text: renderTemplate(parts.text, values, budget, 'plain') };
      if (purpose === 'send') return { subject, html, text: null };
      const text = textFromHtml(html);
      budget.spend(text);
      return { subject, html, text };
    },
  };
}

export type TemplateRenderer = ReturnType<typeof createTemplateRenderer>;
