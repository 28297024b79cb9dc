import type { Command } from 'commander';
import { effectiveSettings, formatSettings } from '../cli/config-report.js';
import { printResult } from '../cli/output.js';

/** `mailroom config`: the settings this process would run with, and where each came from. */
export function registerConfigCommand(program: Command, fromEnvFile: ReadonlySet<string>): void {
  program
    .command('config')
    .description('Print the effective settings (environment, then .env, then defaults), secrets masked; stops like start-up on a bad value')
    .usage('[--json]')
    .option('--json', 'print {"NAME": {"value", "source"}, …}')
    .action((options: { json?: boolean }) => {
      const settings = effectiveSettings(process.env, fromEnvFile);
      const byName = Object.fromEntries(settings.map(({ name, value, source }) => [name, { value, source }]));
      printResult(options.json, byName, () => formatSettings(settings));
    });
}
