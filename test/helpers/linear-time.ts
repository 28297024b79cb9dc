import { readFileSync } from 'node:fs';
import vm from 'node:vm';

/**
 * Time spent by work itself, not by the machine: the CPU time of the calling
 * thread (Linux keeps it in /proc/thread-self/schedstat, in nanoseconds,
 * current to the last scheduler tick), so two cores shared with other test
 * runs do not make a pattern look slow. Elsewhere the process's CPU time.
 */
export function threadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

/** CPU milliseconds `work` took on this thread (an async work's own turns, and whatever else ran on the thread meanwhile). */
export async function cpuMsOf(work: () => unknown): Promise<number> {
  const start = threadCpuMs();
  await work();
  return threadCpuMs() - start;
}

const box = vm.createContext({ work: () => {} });

/**
 * Runs `work` (synchronous) and stops it after `wallMs`: a pattern that
 * backtracks exponentially would otherwise hold the thread for ever. Answers
 * whether it ended.
 */
export function endsWithin(work: () => void, wallMs: number): boolean {
  box.work = work;
  try {
    vm.runInContext('work()', box, { timeout: wallMs });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return false;
    throw error;
  } finally {
    box.work = () => {};
  }
}

/** A copy of `pattern` that finds every match from position 0 on, as matchAll and a global replace do. */
export function everywhere(pattern: RegExp): RegExp {
  return new RegExp(pattern.source, `${pattern.flags.replace(/[gy]/g, '')}g`);
}

/** Runs a global pattern over `input` match by match, as matchAll would without building the matches; answers how many. */
export function countMatches(global: RegExp, input: string): number {
  let matches = 0;
  global.lastIndex = 0;
  let last = -1;
  while (global.test(input)) {
    matches++;
    // An empty match leaves lastIndex where it was: step over it, as matchAll does.
    if (global.lastIndex === last) global.lastIndex++;
    last = global.lastIndex;
    if (global.lastIndex > input.length) break;
  }
  return matches;
}

/** A string V8 holds flat (one piece), so that joining the pieces of a built string is not timed as the pattern's work. */
export function flat(input: string): string {
  /x^/.test(input);
  return input;
}
