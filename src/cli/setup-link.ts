import pino from 'pino';
import type { Config } from '../config.js';

/**
 * The first-run setup link as `serve` tells it at a terminal, besides its JSON log line: among JSON lines a
 * person does not find it. Undefined when nobody needs it told again: standard output is not a terminal
 * (a supervisor, a pipe, a log collector, which read the JSON line), or LOG_FORMAT=pretty already shows it.
 */
export function setupLinkAtTerminal(config: Pick<Config, 'logFormat' | 'logLevel'>, terminal: boolean = process.stdout.isTTY === true): ((link: string) => void) | undefined {
  if (!terminal) return undefined;
  const logShowsIt = config.logFormat === 'pretty' && (pino.levels.values[config.logLevel] ?? Infinity) <= pino.levels.values.info!;
  if (logShowsIt) return undefined;
  // On stderr: written at once, where stdout's log lines are written a few kilobytes at a time.
  return (link) => process.stderr.write(`\nmailroom: no one can sign in yet. Open this link within an hour to create the first admin account and workspace:\n\n    ${link}\n\n`);
}
