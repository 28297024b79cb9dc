// bin/mailroom.js runs the bundle (dist/bundle/cli.js) through V8's code cache: used when it was made for
// this very file, remade when missing or made for another one, and never in the way of running.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServe } from './helpers/serve-process.js';

const REPO = join(import.meta.dirname, '..');
const CACHE_WAIT_MS = 20_000;

/** A copy of the installation's build (bin/ and dist/bundle/; node_modules and the dashboard linked), so that its cache is this test's own. */
function copyOfTheBuild(root: string): { bin: string; bundle: string; cache: string } {
  cpSync(join(REPO, 'bin'), join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  cpSync(join(REPO, 'dist', 'bundle'), join(root, 'dist', 'bundle'), { recursive: true });
  symlinkSync(join(REPO, 'dist', 'web'), join(root, 'dist', 'web'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  const bundle = join(root, 'dist', 'bundle', 'cli.js');
  const cache = `${bundle}.cache`;
  rmSync(cache, { force: true });
  return { bin: join(root, 'bin', 'mailroom.js'), bundle, cache };
}

async function waitForFile(path: string): Promise<void> {
  const deadline = Date.now() + CACHE_WAIT_MS;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} was not written within ${CACHE_WAIT_MS} ms`);
    await sleep(50);
  }
}

describe('the code cache of the bundled build', () => {
  let root: string;
  let build: ReturnType<typeof copyOfTheBuild>;
  const packageVersion = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

  /** `mailroom --version` from the copy, with the loader's debug line: what it made of the cache. */
  function version(): { stdout: string; cacheLine: string } {
    const run = spawnSync(process.execPath, [build.bin, '--version'], { env: { ...process.env, LOG_LEVEL: 'debug' }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return { stdout: run.stdout.trim(), cacheLine: run.stderr.trim() };
  }

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'mailroom-code-cache-'));
    build = copyOfTheBuild(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('without a cache the command runs, and serve writes one that the next start uses', async () => {
    assert.deepEqual(version(), { stdout: packageVersion, cacheLine: `mailroom: code cache none (${build.cache})` });
    assert.equal(existsSync(build.cache), false, 'a command that ends at once writes no cache');

    const dataDir = join(root, 'data');
    const serve = await startServe({ MAILROOM_DATA_DIR: dataDir }, { bin: build.bin });
    try {
      await waitForFile(build.cache);
      assert.equal((await fetch(`${serve.base}/v1/health/check`)).status, 200);
    } finally {
      assert.equal(await serve.stop(), 0);
    }
    const { size, mtimeMs } = statSync(build.bundle);
    const cache = readFileSync(build.cache);
    const headerEnd = cache.indexOf('\n');
    assert.deepEqual(JSON.parse(cache.subarray(0, headerEnd).toString()), { size, mtimeMs }, 'the cache names the bundle it was made for');
    assert.ok(cache.length - headerEnd > 100_000, `V8's code follows the header (${cache.length - headerEnd} bytes)`);

    assert.deepEqual(version(), { stdout: packageVersion, cacheLine: `mailroom: code cache used (${build.cache})` });
  });

  test('a cache made for another build of the bundle is not used', () => {
    const { mtimeMs } = statSync(build.bundle);
    const later = new Date(mtimeMs + 60_000);
    utimesSync(build.bundle, later, later);
    assert.deepEqual(version(), { stdout: packageVersion, cacheLine: `mailroom: code cache none (${build.cache})` });
  });

  test('a damaged cache is refused by V8 and the command still runs', () => {
    const { size, mtimeMs } = statSync(build.bundle);
    writeFileSync(build.cache, Buffer.concat([Buffer.from(`${JSON.stringify({ size, mtimeMs })}\n`), Buffer.alloc(64 * 1024, 0x5a)]));
    assert.deepEqual(version(), { stdout: packageVersion, cacheLine: `mailroom: code cache rejected (${build.cache})` });
  });
});
