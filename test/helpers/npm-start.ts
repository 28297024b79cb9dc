import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readStartLine } from './serve-process.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface NpmStart {
  /** The `npm start` process: the leader of a process group of its own. */
  npm: ChildProcess;
  /** Mailroom's own process, as its log names it (`"pid"`). */
  mailroomPid: number;
  base: string;
  /** npm's exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Everything npm and Mailroom wrote to stdout and stderr so far. */
  output(): string;
  /** The processes of the group still there (zombies too): none once everything has ended. */
  groupLeft(): number[];
  /** The kernel's id of serve's delivery thread, once it is up (serve logged "delivery thread started"). */
  deliveryThread(): number | undefined;
  /** SIGKILL to the whole group: for a failed test's leftovers. */
  kill(): void;
}

/**
 * Mailroom started as the README says, `npm start` in the checkout (with `env`
 * naming the store, and PORT 0: a free port, read back from the log), in a
 * process group of its own, so the test can signal it as a terminal or a
 * supervisor would and see what is left afterwards.
 */
export async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', LOG_LEVEL: 'info', ...env, PORT: '0' },
  });
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  // For a start that never comes, and for a failed test's leftovers: the whole group, Mailroom with npm.
  const killGroup = () => {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // nothing left
    }
  };
  const { started, output } = readStartLine(npm, exited, /"pid":(\d+)[^\n]*"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/, 'npm start', killGroup);
  const match = await started;
  const listening = { pid: Number(match[1]), port: Number(match[2]) };
  const group = npm.pid!;
  return {
    npm,
    mailroomPid: listening.pid,
    base: `http://127.0.0.1:${listening.port}`,
    exited,
    output,
    groupLeft: () => processesInGroup(group),
    deliveryThread: () => deliveryThreadOf(listening.pid, output()),
    kill: killGroup,
  };
}

/** The thread id serve (`servePid`) logged its delivery thread under, from `output`, its log; the latest when there were several. */
export function deliveryThreadOf(servePid: number, output: string, not?: number): number | undefined {
  const tids = [...output.matchAll(new RegExp(`"pid":${servePid},[^\\n]*"tid":(\\d+)[^\\n]*"msg":"delivery thread started"`, 'g'))].map((m) => Number(m[1]));
  return tids.filter((tid) => tid !== not).pop();
}

/** A process's nice value, or one thread's when `tid` is given (field 19 of /proc/PID[/task/TID]/stat). */
export function niceOf(pid: number, tid?: number): number {
  const stat = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  return Number(readFileSync(stat, 'utf8').split(') ')[1]!.split(' ')[16]);
}

/** The thread ids of a process (Linux /proc). */
export function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [];
  }
}

/** The children of a process, from /proc (Linux). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Gone, or a zombie nobody has reaped yet (a container's init may not): either way it runs no more. */
export function processGone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
}

/** The pids whose process group is `group`, from /proc (Linux): `pid (comm) state ppid pgrp …`. */
function processesInGroup(group: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group) pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}
