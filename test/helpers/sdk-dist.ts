import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');
/** sdk/dist, as `npm install` builds it. */
export const SDK_DIST = join(ROOT, 'sdk', 'dist');

/** Builds sdk/dist from this checkout's sdk/src with the SDK's own TypeScript, so tests of the built package test the code at hand. */
export async function buildSdk(): Promise<void> {
  await promisify(execFile)('npm', ['run', 'build', '--prefix', 'sdk'], { cwd: ROOT, timeout: 120_000 });
}
