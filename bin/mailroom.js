#!/usr/bin/env node
// Runs the compiled build (dist/, made by `npm run build`, which `npm install` runs through `prepare`).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mailroom: dist/cli.js is missing: run `npm run build` (npm install does it) first\n');
  process.exit(1);
}
await import(cli.href);
