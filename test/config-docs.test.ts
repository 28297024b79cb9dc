/**
 * docs/configuration.md's table of variables is generated (`npm run
 * docs:config`) and cannot drift: it must be what the generator writes now, and
 * it must name every variable Mailroom reads, as loadConfig reads them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_DOC, TABLE_END, TABLE_START, withConfigTable } from '../scripts/config-docs.js';
import { loadConfig } from '../src/config.js';

const ROOT = join(import.meta.dirname, '..');

/** The variable names of the table in docs/configuration.md, in order. */
function documented(): string[] {
  const doc = readFileSync(CONFIG_DOC, 'utf8');
  const table = doc.slice(doc.indexOf(TABLE_START), doc.indexOf(TABLE_END));
  return [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);
}

/** Every name `load` looks up in the environment it is given. */
function variablesRead(load: (env: NodeJS.ProcessEnv) => unknown): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get(_, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  load(env);
  return read;
}

const missingFrom = (listed: string[], read: Set<string>) => [...read].filter((name) => !listed.includes(name));

/** Every `.ts` file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('docs/configuration.md', () => {
  it('has the table `npm run docs:config` writes from the configuration schema', () => {
    const doc = readFileSync(CONFIG_DOC, 'utf8');
    assert.equal(withConfigTable(doc), doc, 'the table is stale: run npm run docs:config');
  });

  it('lists every variable loadConfig reads, once, and no other', () => {
    const names = documented();
    const read = variablesRead(loadConfig);
    assert.ok(read.size > 40, `loadConfig reads its variables from the environment given (${read.size})`);
    assert.deepEqual(missingFrom(names, read), [], 'read but not in the table');
    assert.deepEqual(names.filter((name) => !read.has(name)), [], 'in the table but never read');
    assert.equal(new Set(names).size, names.length, 'each variable once');
  });

  it('would see a variable read and not listed', () => {
    // The check above proves something only if it notices a setting read behind the schema's back.
    const read = variablesRead((env) => [loadConfig(env), env.MAILROOM_SOMETHING_NEW]);
    assert.deepEqual(missingFrom(documented(), read), ['MAILROOM_SOMETHING_NEW']);
  });

  it('lists every variable the sources name in process.env, and every one .env.example shows', () => {
    const names = documented();
    for (const file of sources(join(ROOT, 'src'))) {
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/process\.env(?:\.|\[['"])([A-Z][A-Z0-9_]*)/g)) {
        assert.ok(names.includes(name!), `${name}, read in ${file.slice(ROOT.length + 1)}, is in the table`);
      }
    }
    const example = [...readFileSync(join(ROOT, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    assert.deepEqual([...new Set(example)].sort(), [...names].sort(), '.env.example shows the same variables');
  });
});
