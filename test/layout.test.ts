/**
 * The layout's import rules (.dependency-cruiser.cjs, checked by
 * dependency-cruiser over src/, type-only imports included): no import
 * circle, a capability reached only through its index.ts, plumbing importing
 * no capability. Any import that breaks one fails the test, named.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((step) => step.name).join(' → ') : v.to}`;

function violationsIn(cwd: string): string[] {
  // The baseline output type lists every violation as JSON, whatever its severity, and exits 0.
  const json = execFileSync(process.execPath, [CLI, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'baseline'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(json) as Violation[]).map(describeViolation).sort();
}

describe('the layout of src/', () => {
  it('has no import circle, no reach into another capability, no plumbing importing a capability', () => {
    assert.deepEqual(violationsIn(ROOT), [], 'imports that break the layout (see .dependency-cruiser.cjs and docs/architecture.md, Layout)');
  });

  it('sees a reach into an inner file, plumbing importing a capability and a circle, when there are', () => {
    // The same rules over a small tree that breaks each once: a check that sees nothing proves nothing.
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-layout-'));
    try {
      const files: Record<string, string> = {
        'src/alpha/index.ts': "export { a } from './a.js';\n",
        'src/alpha/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'src/alpha/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
        'src/beta/index.ts': "import { b } from '../alpha/b.js';\nexport const c = b;\n",
        'src/lib/util.ts': "import { c } from '../beta/index.js';\nexport const d = c;\n",
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }));
      const found = violationsIn(dir);
      assert.deepEqual(found, [
        'capability-through-its-index: src/beta/index.ts → src/alpha/b.ts',
        'no-circular: src/alpha/a.ts → src/alpha/b.ts → src/alpha/a.ts',
        'plumbing-imports-no-capability: src/lib/util.ts → src/beta/index.ts',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
