import Mustache, { type MustacheToken } from 'mustache';

/**
 * The template language: Mustache syntax (`{{key}}` HTML-escaped (in HTML), `{{{key}}}` and `{{& key}}` raw,
 * `{{#key}}…{{/key}}` when the variable is set and not empty, `{{^key}}…{{/key}}` when it is not,
 * `{{! comments }}`), parsed by the maintained `mustache` package and rendered here.
 *
 * Why Mustache and why our own renderer over its tokens: Mustache is logic-less, so a template holds no
 * code, no helpers, no includes; Handlebars compiles templates to JavaScript and ships helpers (`lookup`,
 * `with`, `each`) whose reach has had to be walled in release after release. mustache.js's own renderer
 * looks names up with `in` (so `{{constructor}}` finds Object's) and calls any function it finds; this one
 * resolves a name only as an own entry of a null-prototype map of the declared variables, whose values are
 * strings and numbers. Variables are never lists, so nothing loops: a render is one pass over the tokens,
 * its work linear in the template's size plus the output's, and the output is counted as it grows, so the
 * 5 MB cap stops it before the memory is spent. The 50 ms deadline is checked between tokens: with no
 * loop and no user code, no step between two checks can run long, so a synchronous render on the API
 * thread is bounded honestly without a worker thread (whose hand-over would cost more than most renders).
 */

/** A template's source larger than this is refused at save. */
export const MAX_TEMPLATE_BYTES = 512 * 1024;
/** A render that produces more than this (subject, HTML and text together) fails. */
export const MAX_RENDER_BYTES = 5 * 1024 * 1024;
/** A render that takes longer than this fails. */
export const MAX_RENDER_MS = 50;
/** Sections nested deeper than this are refused at save (the renderer recurses once per level). */
export const MAX_SECTION_DEPTH = 32;
/** Tokens rendered between two looks at the clock. */
const TOKENS_PER_CLOCK_CHECK = 256;

// mustache.js keeps every template it parsed in a process-wide map; templates are cached here, per version.
Mustache.templateCache = undefined;

/** A template refused at save: what is wrong, and where. */
export class TemplateSyntaxError extends Error {}

/** A render that went past a bound: the send or preview fails with this sentence. */
export class RenderLimitError extends Error {}

export interface CompiledTemplate {
  readonly tokens: MustacheToken[];
  /** Every variable name a tag names, for the check against the declaration at save. */
  readonly names: ReadonlySet<string>;
}

/** Line and column (from 1) of a character offset, as an editor shows them. */
function position(source: string, offset: number): string {
  const before = source.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

const MUSTACHE_ERROR = /^(.*) at (\d+)$/;

/** Parses `source` (`field` names it in errors), refusing what this language does not have. */
export function compileTemplate(field: string, source: string): CompiledTemplate {
  if (Buffer.byteLength(source) > MAX_TEMPLATE_BYTES) throw new TemplateSyntaxError(`${field} is larger than ${MAX_TEMPLATE_BYTES / 1024} KB`);
  let tokens: MustacheToken[];
  try {
    tokens = Mustache.parse(source);
  } catch (error) {
    const match = MUSTACHE_ERROR.exec((error as Error).message);
    if (!match) throw new TemplateSyntaxError(`${field} has a syntax error: ${(error as Error).message}`);
    throw new TemplateSyntaxError(`${field} has a syntax error at ${position(source, Number(match[2]))}: ${match[1]}`);
  }
  const names = new Set<string>();
  // Walked with a stack of its own: a deep template must not overflow this walk before being refused for it.
  const pending: Array<{ tokens: MustacheToken[]; depth: number }> = [{ tokens, depth: 0 }];
  while (pending.length > 0) {
    const { tokens: level, depth } = pending.pop()!;
    for (const token of level) {
      const [type, value, start] = token;
      if (type === '>') throw new TemplateSyntaxError(`${field} includes a partial at ${position(source, start)}: templates cannot include others`);
      if (type === 'name' || type === '&' || type === '#' || type === '^') names.add(value);
      if (type === '#' || type === '^') {
        if (depth + 1 > MAX_SECTION_DEPTH) throw new TemplateSyntaxError(`${field} nests sections more than ${MAX_SECTION_DEPTH} deep at ${position(source, start)}`);
        pending.push({ tokens: token[4] ?? [], depth: depth + 1 });
      }
    }
  }
  return { tokens, names };
}

/** The variables a render may reach: own entries of a map with no prototype, strings and numbers only. */
export type RenderValues = Readonly<Record<string, string | number>>;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#x60;', '=': '&#x3D;', '/': '&#x2F;' };
const escapeHtml = (text: string) => text.replace(/[&<>"'`=/]/g, (c) => HTML_ESCAPES[c]!);

/** What one render may still spend, shared by the parts of one message (subject, HTML, text). */
export class RenderBudget {
  private bytes = 0;
  private steps = 0;
  private readonly deadline: number;
  constructor(maxMs = MAX_RENDER_MS, private readonly maxBytes = MAX_RENDER_BYTES) {
    this.deadline = performance.now() + maxMs;
  }
  spend(text: string): void {
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.maxBytes) throw new RenderLimitError(`template rendering produced more than ${this.maxBytes / 1024 / 1024} MB`);
  }
  step(): void {
    if (++this.steps % TOKENS_PER_CLOCK_CHECK === 0 && performance.now() > this.deadline) {
      throw new RenderLimitError(`template rendering took longer than ${MAX_RENDER_MS} ms`);
    }
  }
}

function lookUp(values: RenderValues, name: string): string | number | undefined {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

/** A value as a section sees it: an empty string, 0 and a missing variable are false. */
const isSet = (value: string | number | undefined) => value !== undefined && value !== '' && value !== 0;

function renderTokens(tokens: MustacheToken[], values: RenderValues, budget: RenderBudget, escape: (text: string) => string, out: string[]): void {
  for (const token of tokens) {
    budget.step();
    const [type, value] = token;
    let piece: string | undefined;
    if (type === 'text') piece = value;
    else if (type === 'name' || type === '&') {
      const found = lookUp(values, value);
      if (found !== undefined) piece = type === 'name' ? escape(String(found)) : String(found);
    } else if (type === '#' || type === '^') {
      if (isSet(lookUp(values, value)) === (type === '#')) renderTokens(token[4] ?? [], values, budget, escape, out);
    }
    if (piece) {
      budget.spend(piece);
      out.push(piece);
    }
  }
}

const asIs = (text: string) => text;

/**
 * Renders a compiled template with `values`, within `budget`. `{{key}}` is HTML-escaped in HTML only: a
 * subject and a text part are plain text, where `&amp;` would be shown as it is.
 */
export function renderTemplate(compiled: CompiledTemplate, values: RenderValues, budget: RenderBudget, format: 'html' | 'plain'): string {
  const out: string[] = [];
  renderTokens(compiled.tokens, values, budget, format === 'html' ? escapeHtml : asIs, out);
  return out.join('');
}
