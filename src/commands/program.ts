import { Command, CommanderError, Help, Option } from 'commander';
import { commandSuggestion } from '../cli/command-suggestion.js';
import { registerApiKeyCommands } from './api-key.js';
import { registerConfigCommand } from './config.js';
import { registerInboundCommands } from './inbound.js';
import { registerMigrateCommand } from './migrate.js';
import { registerOperationsCommands } from './operations.js';
import { registerSandboxCommands } from './sandbox.js';
import { registerServeCommands } from './serve.js';
import { registerUserCommands } from './user.js';
import { registerWorkspaceCommands } from './workspace.js';
import { mailroomVersion } from '../cli/version.js';

const MIN_DESCRIPTION_WIDTH = 40;

/** A command's words after `mailroom` (`workspace create`). */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * The command list shows every command in full with its usage
 * (`workspace create --name NAME [--json]`), the top level included, so one
 * `mailroom --help` shows every command there is.
 */
const layout: Partial<Help> = {
  visibleCommands(this: Help, command: Command): Command[] {
    const visible = Help.prototype.visibleCommands.call(this, command);
    if (command.parent) return visible;
    return visible.flatMap((c) => (c.commands.length === 0 ? [c] : Help.prototype.visibleCommands.call(this, c).filter((sub) => sub.name() !== 'help')));
  },
  subcommandTerm(command: Command): string {
    // Commander adds "[options]" for the help option alone; a command's own usage says what it takes.
    const usage = command.options.length === 0 ? command.usage().replace(/^\[options\]\s*/, '') : command.usage();
    // The implicit `help` command has no parent to name it by.
    return `${command.parent ? pathOf(command) : command.name()} ${usage}`.trim();
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    // Long usages would leave the descriptions a sliver: each goes under its term instead.
    const width = this.helpWidth ?? 80;
    if (!description || width - termWidth - 4 >= MIN_DESCRIPTION_WIDTH) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    return `  ${term}\n${helper.boxWrap(description, width - 6).replace(/^/gm, '      ')}`;
  },
};

/** Every command's path (`workspace create`), the groups' too, for suggestions. */
function commandPaths(command: Command): string[] {
  return command.commands.filter((c) => c.name() !== 'help').flatMap((c) => [pathOf(c), ...commandPaths(c)]);
}

/**
 * An unknown top-level word, with the nearest command: commander's own guess there comes from the
 * command list as the help lays it out (workspace create, …), which holds no group, so `workspac`
 * found nothing and `create` found a `create` no one can run.
 */
function withTopLevelSuggestion(program: Command, message: string): string {
  const unknown = /^unknown command '(.+)'$/.exec(message)?.[1];
  return unknown === undefined ? message : `${message}${commandSuggestion(unknown, commandPaths(program))}`;
}

/** Each error on one line, with where to read more: `mailroom: unknown option '--jsn' (Did you mean --json?); see mailroom workspace list --help`. */
function reportErrorsOnOneLine(command: Command): void {
  const where = `mailroom${pathOf(command) ? ` ${pathOf(command)}` : ''}`;
  command.configureOutput({
    outputError: (message, write) => {
      const line = message.replace(/^error: /, '').trim().replace(/(?<!\s)\s*\n\s*/g, ' ');
      write(`mailroom: ${command.parent ? line : withTopLevelSuggestion(command, line)}; see ${where} --help\n`);
    },
  });
  for (const sub of command.commands) reportErrorsOnOneLine(sub);
}

/** `-v` as `-V` and `--version` (commander takes one short flag an option): what people try first. */
function versionAlsoAsLowerV(program: Command): void {
  program.addOption(new Option('-v').hideHelp());
  program.on('option:v', () => {
    process.stdout.write(`${program.version()}\n`);
    throw new CommanderError(0, 'commander.version', String(program.version()));
  });
}

/**
 * The `mailroom` command line. Each command group is one file of src/cli/
 * with a `register…` function: adding a command is a file and a line here.
 * Errors are thrown (exitOverride), for src/commands/run.ts to turn into a status.
 */
export function buildProgram(fromEnvFile: ReadonlySet<string>): Command {
  const program = new Command('mailroom')
    .description('Mailroom: a self-hostable transactional e-mail service')
    .version(mailroomVersion(), '-V, --version', 'print the version (-v too)')
    .helpOption('-h, --help', 'show help for the command')
    .configureHelp(layout)
    .exitOverride()
    .addHelpText(
      'after',
      '\nSettings come from the environment, then from a .env file in the working\ndirectory (the environment wins): see .env.example, and `mailroom config` for\nthe values in effect. `mailroom COMMAND --help` tells more of a command.',
    );
  registerServeCommands(program);
  registerMigrateCommand(program);
  registerWorkspaceCommands(program);
  registerApiKeyCommands(program);
  registerUserCommands(program);
  registerSandboxCommands(program);
  registerInboundCommands(program);
  registerConfigCommand(program, fromEnvFile);
  registerOperationsCommands(program);
  // Set after the commands are made, which copied the setting: theirs keep commander's guesses (`workspace craete`).
  program.showSuggestionAfterError(false);
  versionAlsoAsLowerV(program);
  reportErrorsOnOneLine(program);
  return program;
}
