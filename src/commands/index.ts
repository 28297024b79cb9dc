/** The `mailroom` command line: every command, over the composition root (src/cli.ts runs it; cli/ holds its plumbing). */
export { runCli } from './run.js';
