import { CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { maskUrlPassword } from '../cli/config-report.js';
import { UnreachableError } from '../db/database.js';
import { AppError } from '../lib/errors.js';
import { UsageError } from '../lib/usage-error.js';
import { loadEnvFile } from '../cli/env-file.js';
import { buildProgram } from './program.js';

/** An error as the one line `mailroom:` prints: no stack, no line breaks, no password of a URL. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return maskUrlPassword(message.trim().replace(/(?<!\s)\s*\n\s*/g, ' '));
}

/**
 * Runs one `mailroom` command line and sets the exit status: 0 done, 1 it
 * failed (a bad setting, a store out of reach, a refusal), 2 a usage mistake
 * (an unknown command or option, a missing one). Every failure is one line on
 * stderr, `mailroom: <sentence>`; a stack only with LOG_LEVEL=debug or trace.
 * `serve` and `worker` go on running after this returns.
 */
export async function runCli(argv: string[]): Promise<void> {
  try {
    // A bare `mailroom` is a command left out: commander shows the help on stderr, as for `mailroom workspace`, with status 2.
    await buildProgram(loadEnvFile()).parseAsync(argv, { from: 'user' });
  } catch (error) {
    // Commander has printed its own line (or the help or version asked for): only the status is left to set.
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`mailroom: ${oneLine(error)}\n`);
    // A failure Mailroom foresaw is told in full by its sentence; any other may be a bug, whose stack a debug run shows.
    const foreseen = error instanceof ConfigError || error instanceof AppError || error instanceof UsageError || error instanceof UnreachableError;
    if (!foreseen && /^(debug|trace)$/.test(process.env.LOG_LEVEL ?? '') && error instanceof Error && error.stack) process.stderr.write(`${maskUrlPassword(error.stack)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}
