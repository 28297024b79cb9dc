/**
 * A process that logs through Mailroom's JSON logger (observability/log-format.ts) as the main thread of
 * `serve` does, for test/log-output.test.ts. argv: how many lines, then `exit` (log them, then
 * process.exit at once) or `stay` (log them and keep running until killed). Every write to standard
 * output is counted; at exit their count and the longest are reported on standard error as JSON.
 */
import fs from 'node:fs';
import { createLogger } from '../../src/observability/log-format.js';

const lines = Number(process.argv[2]);
const mode = process.argv[3];
const writes: number[] = [];
const byteLength = (data: unknown) => (typeof data === 'string' ? Buffer.byteLength(data) : (data as Buffer).byteLength);
// The logger's stream calls these through the module object at each write: counting them here counts its writes.
const write = fs.write;
const writeSync = fs.writeSync;
Object.assign(fs, {
  write: (fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd === 1) writes.push(byteLength(data));
    return (write as (...args: unknown[]) => void)(fd, data, ...rest);
  },
  writeSync: (fd: number, data: unknown, ...rest: unknown[]) => {
    if (fd === 1) writes.push(byteLength(data));
    return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  },
});

const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
// About as long as a request line.
const padding = 'x'.repeat(200);
for (let i = 0; i < lines; i++) logger.info({ i, padding }, 'line');
if (mode === 'exit') {
  // After the logger's own exit handler, which writes what it still holds.
  process.on('exit', () => fs.writeSync(2, JSON.stringify({ writes: writes.length, longest: Math.max(0, ...writes) })));
  process.exit(0);
} else {
  setInterval(() => {}, 60_000);
}
