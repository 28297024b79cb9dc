#!/usr/bin/env node
// Runs the compiled build: dist/bundle/cli.js, made by `npm run build` (which `npm install` runs through
// `prepare`) from tsc's dist/ (scripts/bundle-server.ts).
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const BUNDLE = fileURLToPath(new URL('../dist/bundle/cli.js', import.meta.url));
/** V8's compiled code of the bundle, kept between starts (scripts/bundle-server.ts writes it at build time too). */
const CODE_CACHE = `${BUNDLE}.cache`;
/** Written this long after a start that found no usable cache: by then `serve` has compiled what its start runs. */
const CODE_CACHE_AFTER_MS = 2_000;

if (!existsSync(BUNDLE)) {
  process.stderr.write('mailroom: dist/bundle/cli.js is missing: run `npm run build` (npm install does it) first\n');
  process.exit(1);
}

const source = readFileSync(BUNDLE, 'utf8');
const { size, mtimeMs } = statSync(BUNDLE);
// V8 checks a cache against the source's length, not its content: the header ties it to this very file.
const header = Buffer.from(`${JSON.stringify({ size, mtimeMs })}\n`);
const cachedData = readCodeCache();
const script = new vm.Script(Module.wrap(source), { filename: BUNDLE, cachedData });
const cacheState = cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
if (cacheState !== 'used') setTimeout(writeCodeCache, CODE_CACHE_AFTER_MS).unref();
if (/^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '')) process.stderr.write(`mailroom: code cache ${cacheState} (${CODE_CACHE})\n`);

const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, createRequire(BUNDLE), bundle, BUNDLE, dirname(BUNDLE));
await bundle.exports.runCli(process.argv.slice(2));

function readCodeCache() {
  try {
    const file = readFileSync(CODE_CACHE);
    return file.subarray(0, header.length).equals(header) ? file.subarray(header.length) : undefined;
  } catch {
    return undefined; // none yet
  }
}

function writeCodeCache() {
  const temporary = `${CODE_CACHE}.${process.pid}`;
  try {
    writeFileSync(temporary, Buffer.concat([header, script.createCachedData()]));
    renameSync(temporary, CODE_CACHE);
  } catch {
    // A read-only installation (or a full disk): every start compiles, as without the cache.
    rmSync(temporary, { force: true });
  }
}
