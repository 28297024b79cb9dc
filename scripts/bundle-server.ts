/**
 * `npm run build:server`, second step: after `tsc` has compiled src/ into
 * dist/, esbuild bundles that compiled JavaScript into dist/bundle/, which
 * bin/mailroom.js (`npm start`) runs. The bundle is the same code, but Node
 * loads one file instead of some 1,400 modules of node_modules, and
 * bin/mailroom.js keeps V8's compiled code of it between starts (a code
 * cache): resolving, reading, linking and compiling those modules was most
 * of Mailroom's start-up (see bench/README.md, bench:start).
 *
 * - The bundle is CommonJS (dist/bundle/package.json says so): V8 takes a
 *   code cache for a script (vm.Script), which Node 20 offers for no ES
 *   module. `import.meta.url` and `import.meta.dirname` become the bundle
 *   file's own.
 * - dist/bundle/ lies one directory below the repository, as every dist/x/
 *   module does, so paths like `join(import.meta.dirname, '..', '..', 'package.json')`
 *   mean the same in the bundle.
 * - Each worker thread's module (dist/<dir>/<name>-thread.js) is a bundle of
 *   its own, written flat as dist/bundle/<name>-thread.js: the code that starts
 *   it names it `new URL('./<name>-thread.js', import.meta.url)`, which from
 *   dist/bundle/cli.js is that file. Two threads of one name would clash, so
 *   that stops the build.
 * - Packages Mailroom loads only on first use, and the native SQLite addon,
 *   stay outside and are required from node_modules when needed.
 * - Whitespace and comments are left out (licence comments go to
 *   <name>.LEGAL.txt beside each file), and every file must come out pure
 *   ASCII, or the build stops: V8 keeps a script's source in memory for as
 *   long as the script lives, one byte a character when all are Latin-1 and
 *   two otherwise, so one stray character in a comment doubled the largest
 *   object in the server's heap. esbuild escapes what is not ASCII in strings,
 *   not in regular expression literals: write those characters as \uXXXX.
 *
 * Last, the build starts the bundled server once, on a throw-away data dir,
 * so that it writes its code cache (bin/mailroom.js does so whenever it finds
 * none): the first `npm start` is as quick as the next.
 */
import { build, type Plugin } from 'esbuild';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');
/** Written by bin/mailroom.js (CODE_CACHE there): the two must agree. */
const CODE_CACHE = join(OUT, 'cli.js.cache');
const WARM_UP_TIMEOUT_MS = 30_000;

const EXTERNAL = [
  // A native addon, found through `bindings`.
  'better-sqlite3',
  // Loaded on first use only: bundled, they would be compiled (or their cache read) at every start.
  'pg',
  'ioredis',
  'mailparser',
  'nodemailer',
  'html-to-text',
  'selfsigned',
  'pino-pretty',
];

/**
 * CommonJS files of node_modules that find their own package's files through
 * `__dirname` or `__filename` (Swagger UI's static files, pino's transport
 * thread): in the bundle those would be the bundle's. Each gets its own
 * file's, from the bundle's location at run time, so the checkout may move
 * after the build.
 */
const packageFilePaths: Plugin = {
  name: 'package-file-paths',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const contents = readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(contents)) return undefined;
      const file = JSON.stringify(relative(OUT, args.path));
      const dir = JSON.stringify(relative(OUT, dirname(args.path)));
      const prelude = `var __filename = require('node:path').join(__bundleDir, ${file}); var __dirname = require('node:path').join(__bundleDir, ${dir});\n`;
      return { contents: prelude + contents, loader: 'js' };
    });
  },
};

/** The thread modules of src/ (not of dist/, which may hold stale files tsc does not remove), as compiled into dist/. */
function threadEntries(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return threadEntries(path);
    return entry.name.endsWith('-thread.ts') ? [join(DIST, relative(SRC, path)).replace(/\.ts$/, '.js')] : [];
  });
}

function checkThreadNames(threads: string[]): void {
  const names = new Map<string, string>();
  for (const thread of threads) {
    const name = basename(thread);
    const other = names.get(name);
    if (other) throw new Error(`two worker-thread modules are named ${name} (${relative(ROOT, other)}, ${relative(ROOT, thread)}): the bundle keeps them flat, so rename one`);
    names.set(name, thread);
  }
}

async function bundle(threads: string[]): Promise<void> {
  // Written over in place, as tsc writes dist/: `npx mailroom` may rebuild (prepare) while a server runs from here.
  const result = await build({
    // The CLI's module without its last line (`await runCli(…)`): bin/mailroom.js calls runCli itself.
    entryPoints: [{ in: join(DIST, 'commands', 'run.js'), out: 'cli' }, ...threads],
    entryNames: '[name]',
    outdir: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    // import() of a package left outside becomes require(): all of them have a CommonJS entry, and a
    // script run through vm.Script (bin/mailroom.js) has no ES module loader of its own.
    supported: { 'dynamic-import': false },
    // import.meta.resolve serves only runs from the TypeScript sources (src/lib/module-worker.ts registering tsx in a thread).
    define: { 'import.meta.url': '__bundleUrl', 'import.meta.dirname': '__dirname', 'import.meta.resolve': 'undefined' },
    banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href; var __bundleDir = __dirname;" },
    plugins: [packageFilePaths],
    minifyWhitespace: true,
    legalComments: 'external',
    logLevel: 'warning',
  });
  // Any warning (a require esbuild cannot follow, import.meta left undefined) fails the build rather than surprising at run time.
  if (result.warnings.length > 0) throw new Error(`esbuild warned ${result.warnings.length} time(s) while bundling the server: see above`);
  for (const file of [join(OUT, 'cli.js'), ...threads.map((thread) => join(OUT, basename(thread)))]) assertAscii(file);
  // The repository's package.json says "module"; these files are CommonJS.
  writeFileSync(join(OUT, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
}

/** Stops the build at the first character of `file` that is not ASCII (see the head of this file for why). */
function assertAscii(file: string): void {
  const text = readFileSync(file, 'latin1');
  const at = text.search(/[^\x00-\x7f]/);
  if (at === -1) return;
  const line = text.slice(0, at).split('\n').length;
  const around = readFileSync(file).subarray(Math.max(0, at - 60), at + 40).toString('utf8');
  throw new Error(
    `${relative(ROOT, file)} holds a character that is not ASCII (line ${line}, byte ${at}), most likely in a regular expression literal: write it as \\uXXXX in the source. Around it: ${JSON.stringify(around)}`,
  );
}

async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return String(port);
}

/**
 * Starts `mailroom serve` as `npm start` does, but on nothing of the machine's (a temp data dir,
 * free loopback ports), until it has written its code cache.
 */
async function warmUp(): Promise<void> {
  // The last build's cache no longer fits the bundle (bin/mailroom.js would ignore it): make this one's.
  rmSync(CODE_CACHE, { force: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-warm-up-'));
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MAILROOM_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    INBOUND_SMTP_PORT: await freePort(),
    SUBMISSION_PORT: await freePort(),
    LOG_LEVEL: 'error',
  };
  // Its stderr (the store it makes, say) is shown only when it fails: a build that worked says nothing of it.
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'mailroom.js'), 'serve'], { cwd: dataDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + WARM_UP_TIMEOUT_MS;
    while (!existsSync(CODE_CACHE)) {
      if (child.exitCode !== null) throw new Error(`the bundled server exited (${child.exitCode}) before writing its code cache: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`the bundled server wrote no code cache within ${WARM_UP_TIMEOUT_MS} ms`);
      await sleep(50);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const threads = threadEntries(SRC);
checkThreadNames(threads);
await bundle(threads);
// The cache only makes starts quicker: a build machine where the server cannot start (no loopback, say) still builds.
await warmUp().catch((error: unknown) => {
  process.stderr.write(`bundle-server: no code cache written (${(error as Error).message}); the first start writes one if dist/bundle/ is writable\n`);
});
