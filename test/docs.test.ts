/**
 * The documentation holds together: a README a newcomer reads in minutes that
 * links every guide, guides that say first what they are for, and links
 * between them all (anchors included) that lead somewhere.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const GUIDES = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
const DOCUMENTS = ['README.md', 'SECURITY.md', 'web/README.md', 'sdk/README.md', 'bench/README.md', 'src/dashboard/README.md', ...GUIDES.map((g) => `docs/${g}`)];

/** The text outside fenced code blocks and inline code, where a `[…](…)` is a link and a `#` line a heading. */
function prose(text: string): string[] {
  let inCode = false;
  return text.split('\n').flatMap((line) => {
    if (line.startsWith('```')) inCode = !inCode;
    return inCode || line.startsWith('```') ? [] : [line.replace(/`[^`]*`/g, '')];
  });
}

/** GitHub's anchor of each heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? undefined : /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every relative link of a document: `[text](target)` and `![alt](target)`, as written. */
function links(file: string): string[] {
  const text = prose(readFileSync(join(ROOT, file), 'utf8')).join('\n');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^(https?:|mailto:)/.test(target));
}

describe('the README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('stays under 250 lines', () => {
    assert.ok(readme.split('\n').length < 250, `README.md has ${readme.split('\n').length} lines`);
  });

  it('links every guide of docs/, and shows the dashboard', () => {
    const linked = new Set(links('README.md'));
    assert.deepEqual(GUIDES.filter((guide) => !linked.has(`docs/${guide}`)), [], 'guides the README does not link');
    assert.ok(linked.has('docs/images/dashboard.png'));
    for (const other of ['SECURITY.md', 'web/README.md', 'sdk/README.md', 'bench/README.md']) assert.ok(linked.has(other), `links ${other}`);
  });
});

describe('the guides', () => {
  it('each open with a title, then a paragraph saying what the guide is for', () => {
    for (const guide of GUIDES) {
      const [title, blank, first] = readFileSync(join(ROOT, 'docs', guide), 'utf8').split('\n');
      assert.match(title!, /^# \S/, `${guide} starts with its title`);
      assert.equal(blank, '', guide);
      assert.match(first!, /^[A-Z`[]/, `${guide} goes on with a sentence, not a list, table, code or heading: ${first}`);
    }
  });
});

describe('links between the documents', () => {
  it('lead to files that exist, and to headings that exist in them', () => {
    const broken: string[] = [];
    for (const file of DOCUMENTS) {
      for (const target of links(file)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no ${relative(ROOT, resolved)})`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('would see a link to a heading that is not there', () => {
    // A check that finds nothing proves nothing: the anchors it knows, and one it must not.
    const known = anchors('# Delivery\n\n## Delivery is at least once\n\n```sh\n# not a heading\n```\n## Delivery is at least once\n');
    assert.deepEqual([...known], ['delivery', 'delivery-is-at-least-once', 'delivery-is-at-least-once-1']);
    assert.ok(anchors(readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8')).has('the-openapi-document-and-docs'));
  });
});
