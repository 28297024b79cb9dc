import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mailroom.js');

/**
 * How long a start may take to log the line the helpers below wait for, before they end the process and fail:
 * one that never logs it (it hangs, or its log says it otherwise) would keep the test process alive forever.
 */
export const START_TIMEOUT_MS = 30_000;

/**
 * Runs a `mailroom` command to completion as a real process (in `cwd`, when given). `unprivileged`:
 * as a user without root's powers, to meet the permission checks an operator's service user meets.
 * As root, that is root without capabilities (util-linux's setpriv): the same user, so the checkout
 * stays readable wherever it is, but bound by file modes and unable to bind ports below 1024.
 */
export function mailroomCommand(args: string[], env: Record<string, string>, options: { cwd?: string; unprivileged?: boolean } = {}) {
  const [command, prefix] = options.unprivileged && process.getuid?.() === 0 ? ['setpriv', ['--bounding-set=-all', '--', process.execPath]] : [process.execPath, []];
  return spawnSync(command, [...prefix, BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', cwd: options.cwd });
}

export interface ServeProcess {
  child: ChildProcess;
  base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `mailroom serve` as a real process on a free port; resolves once it logs where it listens.
 * LOG_LEVEL is `info` unless `env` names one (debug or trace: the line waited for is logged at info).
 * `bin`: another copy of bin/mailroom.js than the checkout's.
 */
export async function startServe(env: Record<string, string>, options: { bin?: string } = {}): Promise<ServeProcess> {
  // No inbound receiver or submission server unless the test asks for one on a port of its own (their defaults, 2525 and 587, are shared).
  // The runner's own LOG_LEVEL, if any, does not reach it: only the caller's.
  const child = spawn(process.execPath, [options.bin ?? BIN, 'serve'], { env: { ...process.env, INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', ...env, PORT: '0', LOG_LEVEL: env.LOG_LEVEL ?? 'info' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailroom serve did not say where it listens within ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`mailroom serve exited early with ${code}: ${output}`));
    });
  });
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** The worker's lease owner, as it logged it at start (`delivery_jobs.lease_owner` of the jobs it holds). */
  owner: string;
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `mailroom worker` as a real process; resolves once it logs that the delivery worker started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  const owner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailroom worker did not log its start within ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"owner":"([^"]+)"[^\n]*"msg":"delivery worker started"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    // Kept reading for the process's whole life, so a full pipe never blocks it.
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`mailroom worker exited early with ${code}: ${output}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    owner,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
