import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { ConfigError, type Config } from '../config.js';

type LogConfig = Pick<Config, 'logLevel' | 'logFormat'>;

/**
 * The main thread's JSON lines are written a few kilobytes at a time (about ten request lines), or
 * every STANDARD_OUTPUT_FLUSH_MS when fewer come. Written a line at a time, each line would be a write
 * handed to libuv's thread pool and its completion handed back: some 7 µs of the HTTP thread's CPU a
 * request under load, a tenth of what it spends on a send.
 * No write is longer than PIPE_BUF, which a pipe takes whole or not at all, so whole lines only, and
 * the lines the worker threads write to the same pipe never land inside one of these.
 */
const PIPE_BUF = 4096;
const STANDARD_OUTPUT_CHUNK_BYTES = 3072;
const STANDARD_OUTPUT_FLUSH_MS = 100;

let mainThreadStandardOutput: DestinationStream | undefined;
let threadStandardOutput: DestinationStream | undefined;

/**
 * Standard output for JSON lines, one stream for every logger of the process's main thread, so their
 * lines keep their order. What it holds is written synchronously at `exit` (pino registers that for a
 * main-thread destination), so only a process killed outright (SIGKILL, a native crash) loses lines,
 * at most the last STANDARD_OUTPUT_FLUSH_MS of them; the store, not the log, is the record of what was
 * accepted. A worker thread writes each line to fd 1 itself, synchronously: its `process.stdout` only
 * hands lines to the main thread, which may exit before it writes them (the delivery thread's last
 * line, "delivery worker stopped", was now and then lost so), and no thread but the main one logs per
 * request.
 */
function standardOutput(): DestinationStream | undefined {
  if (!isMainThread) {
    threadStandardOutput ??= pino.destination({ dest: 1, sync: true });
    return threadStandardOutput;
  }
  mainThreadStandardOutput ??= pino.destination({
    dest: 1, sync: false, minLength: STANDARD_OUTPUT_CHUNK_BYTES, maxWrite: PIPE_BUF, periodicFlush: STANDARD_OUTPUT_FLUSH_MS,
  });
  return mainThreadStandardOutput;
}

/**
 * Where log lines go: JSON lines on standard output, one object per line, for
 * machines (the default, see standardOutput); or, with LOG_FORMAT=pretty, pino-pretty's coloured
 * one-line-per-event text, for people at a terminal. pino-pretty is a
 * development dependency: a production install without it says so at start
 * rather than failing on the first line. The pretty text is written
 * synchronously.
 */
export function logDestination(config: LogConfig, destination?: NodeJS.WritableStream): DestinationStream | undefined {
  if (config.logFormat !== 'pretty') return (destination as DestinationStream | undefined) ?? standardOutput();
  let pretty: (options: Record<string, unknown>) => DestinationStream;
  try {
    pretty = createRequire(import.meta.url)('pino-pretty') as typeof pretty;
  } catch {
    throw new ConfigError('Invalid configuration: LOG_FORMAT=pretty needs the pino-pretty package, a development dependency (npm install pino-pretty), or LOG_FORMAT=json');
  }
  return pretty({
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
    ...(destination ? { destination } : {}),
  });
}

/** A logger of the configured level and format: the worker's, the inbound receiver's, … (Fastify's is built from the same destination). */
export function createLogger(config: LogConfig, options: LoggerOptions = {}, destination?: NodeJS.WritableStream): Logger {
  const stream = logDestination(config, destination);
  return stream ? pino({ level: config.logLevel, ...options }, stream) : pino({ level: config.logLevel, ...options });
}
