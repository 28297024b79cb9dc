import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'mailroom.js');

/** Runs a `mailroom` command to completion as a real process. */
export function mailroomCommand(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
}

export interface ServeProcess {
  child: ChildProcess;
  base: string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `mailroom serve` as a real process on a free port; resolves once it logs where it listens. */
export async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then((code) => reject(new Error(`mailroom serve exited early with ${code}: ${output}`)));
  });
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
