/**
 * The code blocks of the README and of the guides under docs/, as a reader
 * copies them, so the tests can run them as written.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');

/** A documentation file of the checkout: `README.md` or `docs/<guide>.md`. */
export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/**
 * The section under `heading` (a whole line, `## Batch sends`), up to the next heading of its level or
 * higher; the whole file without a heading.
 */
export function docSection(file: string, heading?: string): string {
  const text = readDoc(file);
  if (heading === undefined) return text;
  const lines = text.split('\n');
  const level = /^#+/.exec(heading)![0].length;
  let inCode = false;
  let start = -1;
  let end = lines.length;
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('```')) inCode = !inCode;
    // A `# comment` inside a shell block is no heading.
    if (inCode || !/^#+ /.test(line)) continue;
    if (start === -1 && line === heading) start = i;
    else if (start !== -1 && /^#+/.exec(line)![0].length <= level) {
      end = i;
      break;
    }
  }
  assert.ok(start !== -1, `${file} has the heading "${heading}"`);
  return lines.slice(start, end).join('\n');
}

/** Every block of `lang` (`sh`, `js`) in the section, in order. */
export function docBlocks(file: string, heading?: string, lang = 'sh'): string[] {
  return [...docSection(file, heading).matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!);
}

/** The first block of `lang` under `heading`: what a reader copies. */
export function docBlock(file: string, heading?: string, lang = 'sh'): string {
  const [block] = docBlocks(file, heading, lang);
  assert.ok(block, `${file} has a ${lang} block${heading ? ` under "${heading}"` : ''}`);
  return block;
}

/** The address a guide's examples use, as the port of a server a test started instead (3000 may be taken). */
export const onPort = (script: string, port: number) => script.replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`);

/**
 * A shell block run by bash with `-euo pipefail`, asynchronously (the server answering it may run on this
 * process's event loop); resolves with its standard output.
 */
export async function runShell(script: string, options: { env?: Record<string, string>; cwd?: string } = {}): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return stdout;
}
