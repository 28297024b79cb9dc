import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The SDK built from this checkout's sdk/src with its own TypeScript, as `npm
 * run build --prefix sdk` builds sdk/dist, but into a directory of the
 * caller's: tests of the built package test the code at hand, and two of them
 * running at once never read each other's half-written files.
 */
export async function buildSdk(): Promise<{ dir: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-sdk-dist-'));
  const tsc = join(ROOT, 'sdk', 'node_modules', 'typescript', 'bin', 'tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(ROOT, 'sdk', 'tsconfig.json'), '--outDir', dir], { timeout: 120_000 });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
