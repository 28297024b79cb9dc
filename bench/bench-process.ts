/**
 * What the benchmarks that run Mailroom as a real process share: starting and
 * stopping child processes, a free port, readiness by the health check, and
 * the clean-up that runs however the benchmark ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
export const HOST = '127.0.0.1';
export const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/** A failure that makes the figures meaningless: reported, then exit 1. */
export class BenchError extends Error {}

export function positiveNumber(name: string, fallback: number, zeroOk = false): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroOk)) {
    console.error(`bench: ${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number (got ${JSON.stringify(raw)})`);
    process.exit(1);
  }
  return value;
}

// ---------------------------------------------------------------- child processes

export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<void>;
  /** The last few KB of its stdout+stderr, to explain a failed start. */
  output(): string;
}

export const children = new Set<Child>();

/** `command` is Node (this one) unless named: `npm` for `npm start`. */
export function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, command: string = process.execPath): Child {
  const proc = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  // Always drain the pipes: a child blocked on a full pipe would look like a slow server.
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  const child: Child = { name, proc, exited, output: () => tail.trim() };
  children.add(child);
  return child;
}

export function isRunning(proc: ChildProcess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

/** SIGTERM lets Mailroom close cleanly (and write a CPU profile); SIGKILL if it does not within the bound. */
export async function stopChild(child: Child): Promise<void> {
  if (isRunning(child.proc)) {
    child.proc.kill('SIGTERM');
    const timer = setTimeout(() => child.proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await child.exited;
    clearTimeout(timer);
  }
  children.delete(child);
}

/** For exits that skip main's `finally` (watchdog, Ctrl-C): synchronous, so it runs before the process ends. */
const dataDirsToRemove = new Set<string>();
/** A temp dir cleanUpNow removes (undefined: none any more, main removed them itself). */
export function removeOnExit(dir: string | undefined): void {
  if (dir === undefined) dataDirsToRemove.clear();
  else dataDirsToRemove.add(dir);
}
export function cleanUpNow(): void {
  for (const child of children) if (isRunning(child.proc)) child.proc.kill('SIGKILL');
  for (const dir of dataDirsToRemove) rmSync(dir, { recursive: true, force: true });
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** Polls the health check rather than sleeping: start-up time varies with the machine and tsx's cache. */
export async function waitReady(child: Child, base: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!isRunning(child.proc)) {
      throw new BenchError(`${child.name} exited during start-up:\n${child.output() || '(no output)'}`);
    }
    try {
      const res = await fetch(`${base}/v1/health/check`, { signal: AbortSignal.timeout(1000) });
      if (res.ok && ((await res.json()) as { status?: string }).status === 'ok') return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new BenchError(`${child.name} did not become ready within ${READY_TIMEOUT_MS / 1000} s:\n${child.output() || '(no output)'}`);
}

/**
 * Runs a benchmark's main to its exit code, bounded by `budgetMs` no matter
 * what hangs (start-up, a stuck connection, a child ignoring SIGTERM), and
 * cleans up (children, the temp dir) however it ends: done, failed, Ctrl-C.
 */
export function runBench(main: () => Promise<number>, budgetMs: number): void {
  setTimeout(() => {
    console.error(`bench: gave up after ${Math.round(budgetMs / 1000)} s`);
    cleanUpNow();
    process.exit(1);
  }, budgetMs).unref();
  process.once('SIGINT', () => {
    cleanUpNow();
    process.exit(130);
  });
  process.once('exit', cleanUpNow);
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`bench: ${error instanceof BenchError ? error.message : ((error as Error)?.stack ?? String(error))}`);
      cleanUpNow();
      process.exit(1);
    },
  );
}
