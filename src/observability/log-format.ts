import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { ConfigError, type Config } from '../config.js';

type LogConfig = Pick<Config, 'logLevel' | 'logFormat'>;

/**
 * Where log lines go: JSON lines on standard output, one object per line, for
 * machines (the default); or, with LOG_FORMAT=pretty, pino-pretty's coloured
 * one-line-per-event text, for people at a terminal. pino-pretty is a
 * development dependency: a production install without it says so at start
 * rather than failing on the first line. The pretty text is written
 * synchronously; the JSON lines go through pino's default destination, which
 * writes asynchronously (the lines logged while a write is under way go out
 * together in the next) and on the main thread writes what it holds
 * synchronously at `exit`, so a line logged just before an exit is not lost.
 */
export function logDestination(config: LogConfig, destination?: NodeJS.WritableStream): DestinationStream | undefined {
  if (config.logFormat !== 'pretty') return destination as DestinationStream | undefined;
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
