import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A regular expression written in a source file: a literal, or a `new RegExp(` / `RegExp(` call site. */
export interface SourcePattern {
  file: string;
  line: number;
  /** The literal's source and flags; undefined for a call site, whose pattern exists only when the code runs. */
  literal?: { source: string; flags: string };
}

/** Keywords after which a `/` starts a regular expression rather than dividing. */
const OPERATOR_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/**
 * Every regular expression literal and every RegExp call site in TypeScript
 * source, by a scanner that knows comments, strings and template literals
 * (with `${…}` inside), and tells a regular expression from a division the
 * way the grammar does: by the token before the slash. TypeScript's own
 * parser is not available as a library here (typescript 7 is a native
 * binary), and the sources keep to the forms this scanner reads.
 */
export function patternsInSource(text: string, file: string): SourcePattern[] {
  const found: SourcePattern[] = [];
  // What the last significant token was: 'value' (an operand ends there, so `/` divides) or 'operator'.
  let last: 'value' | 'operator' = 'operator';
  let lastWord = '';
  // Brace depth at which each template literal's `${` was opened, innermost last.
  const templates: number[] = [];
  let braces = 0;
  let i = 0;
  const lineAt = (at: number) => text.slice(0, at).split('\n').length;

  const skipString = (quote: string) => {
    for (i++; i < text.length && text[i] !== quote; i++) if (text[i] === '\\') i++;
    i++;
  };
  // From inside a template literal's text to its end (returns true) or to a `${` (false).
  const skipTemplateText = (): boolean => {
    for (; i < text.length; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '`') {
        i++;
        return true;
      } else if (text[i] === '$' && text[i + 1] === '{') {
        i += 2;
        return false;
      }
    }
    return true;
  };

  // Template text up to its end (true), or into a `${`, whose brace depth is kept to find its end (false).
  const readTemplateText = (): boolean => {
    if (skipTemplateText()) return true;
    templates.push(braces);
    braces++;
    return false;
  };

  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i);
      if (i === -1) break;
      continue;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2) + 2;
      if (i === 1) break;
      continue;
    } else if (/\s/.test(c)) {
      i++;
      continue; // neither comments nor white space change what the slash after them means
    } else if (c === "'" || c === '"') {
      skipString(c);
      last = 'value';
    } else if (c === '`') {
      i++;
      if (!readTemplateText()) {
        last = 'operator';
        continue;
      }
      last = 'value';
    } else if (c === '/') {
      if (last === 'value' && !OPERATOR_KEYWORDS.has(lastWord)) {
        i++;
        last = 'operator';
      } else {
        const start = i;
        let inClass = false;
        for (i++; i < text.length; i++) {
          if (text[i] === '\\') i++;
          else if (text[i] === '[') inClass = true;
          else if (text[i] === ']') inClass = false;
          else if (text[i] === '/' && !inClass) break;
          else if (text[i] === '\n') throw new Error(`${file}:${lineAt(start)}: a regular expression literal that does not end on its line (the scanner misread a division?)`);
        }
        const source = text.slice(start + 1, i);
        i++;
        const flags = /^[a-z]*/.exec(text.slice(i))![0];
        i += flags.length;
        found.push({ file, line: lineAt(start), literal: { source, flags } });
        last = 'value';
      }
      lastWord = '';
      continue;
    } else if (/[A-Za-z_$0-9]/.test(c)) {
      const word = /^[A-Za-z_$0-9]+/.exec(text.slice(i, i + 200))![0];
      if (word === 'RegExp' && /^\s*\(/.test(text.slice(i + word.length, i + word.length + 20))) found.push({ file, line: lineAt(i) });
      i += word.length;
      last = 'value';
      lastWord = word;
      continue;
    } else if (c === '{') {
      braces++;
      i++;
      last = 'operator';
    } else if (c === '}') {
      braces--;
      i++;
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        templates.pop();
        if (!readTemplateText()) {
          last = 'operator';
          continue;
        }
      }
      last = 'value';
    } else if (c === ')' || c === ']') {
      i++;
      last = 'value';
    } else {
      // `!` of a non-null assertion (`x!`) ends an operand; any other punctuator expects one.
      last = c === '!' && last === 'value' && text[i + 1] !== '=' ? 'value' : 'operator';
      i++;
    }
    lastWord = '';
  }
  return found;
}

/** The TypeScript files under `dir`, recursively, in a stable order. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}

/** Every pattern of the files under `dirs`, named relative to `root`. */
export function patternsUnder(root: string, dirs: string[]): SourcePattern[] {
  return dirs.flatMap((dir) => sourceFiles(join(root, dir))).flatMap((path) => patternsInSource(readFileSync(path, 'utf8'), relative(root, path)));
}
