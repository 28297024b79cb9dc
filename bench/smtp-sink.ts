/** Postfix's smtp-sink for the benchmarks that relay (bench:delivery, bench:send with BENCH_PROVIDER=smtp). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './bench-process.js';

const SMTP_SINK = '/usr/sbin/smtp-sink';

/** Postfix's smtp-sink: accepts everything (PIPELINING, DSN, 8BITMIME advertised), keeps nothing. */
export async function startSink(): Promise<{ port: number; proc: ChildProcess }> {
  if (!existsSync(SMTP_SINK)) throw new Error(`${SMTP_SINK} is missing: apt-get install -y postfix`);
  const port = await freePort();
  const proc = spawn(SMTP_SINK, ['-u', 'nobody', '-a', '-C', '-F', `127.0.0.1:${port}`, '1000'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(true)); // the port is taken: the sink listens
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
    });
    if (up) return { port, proc };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  proc.kill();
  throw new Error('smtp-sink did not start');
}

