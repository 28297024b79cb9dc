/**
 * The layout's import rules (.dependency-cruiser.cjs, checked by
 * dependency-cruiser over src/, type-only imports included): no import
 * circle, a capability reached only through its index.ts, plumbing importing
 * no capability. The imports that break them today are listed in
 * .dependency-cruiser-known-violations.json; the test fails on any other, and
 * on a listed one that is gone, so the list only shrinks (`npm run
 * layout:baseline` writes it again after a move).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((step) => step.name).join(' → ') : v.to}`;

function violationsNow(): string[] {
  const json = execFileSync(process.execPath, [CLI, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'baseline'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(json) as Violation[]).map(describeViolation).sort();
}

describe('the layout of src/', () => {
  it('adds no import circle, no reach into another capability, no plumbing importing a capability; and lists only what still breaks them', () => {
    const known = new Set((JSON.parse(readFileSync(join(ROOT, '.dependency-cruiser-known-violations.json'), 'utf8')) as Violation[]).map(describeViolation));
    const now = violationsNow();
    const added = now.filter((v) => !known.has(v));
    const gone = [...known].filter((v) => !now.includes(v));
    assert.deepEqual(added, [], 'imports that break the layout (see .dependency-cruiser.cjs)');
    assert.deepEqual(gone, [], 'no longer broken: run `npm run layout:baseline` so the list shrinks');
  });
});
