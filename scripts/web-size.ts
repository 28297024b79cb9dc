/**
 * After `vite build`: the JavaScript a first visit loads (the scripts and module preloads dist/web/index.html
 * names), gzipped, against the 250 KB budget of issue 14. Prints the figure; exits 1 over budget.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 250 * 1024;
const dist = join(import.meta.dirname, '..', 'dist', 'web');
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="\/([^"]+\.js)"/g)].map((m) => m[1]!);
if (files.length === 0) throw new Error('dist/web/index.html names no JavaScript');
let total = 0;
for (const file of files) {
  const gzipped = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += gzipped;
  console.log(`web: ${file} ${(gzipped / 1024).toFixed(1)} KB gzipped`);
}
console.log(`web: first-load JavaScript ${(total / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`);
if (total > BUDGET_BYTES) process.exit(1);
