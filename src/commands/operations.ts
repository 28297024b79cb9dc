import type { Command } from 'commander';
import { backupReport, backupStore, rotateSecrets, rotationReport } from '../composition/index.js';
import { printResult } from '../cli/output.js';
import { cliConfig, required, tellStore, useExistingStore } from './store.js';

/** `mailroom secrets rotate` and `mailroom backup`: the store's secrets and copies (src/operations/). */
export function registerOperationsCommands(program: Command): void {
  program
    .command('secrets')
    .description('The key that encrypts DKIM keys, webhook secrets and upstream credentials at rest')
    .command('rotate')
    .description(
      'Re-encrypt DKIM keys, webhook secrets and upstream credentials under a new key, with Mailroom stopped (made and written to the data dir\'s secret.key; with MAILROOM_SECRET_KEY set, give the new key in FILE and set it afterwards)',
    )
    .usage('[--new-key-file FILE] [--json]')
    .option('--new-key-file <FILE>', 'the new key (required when MAILROOM_SECRET_KEY is set)')
    .option('--json', 'print {resealed, unreadable, key_file}')
    .action(async (options: { newKeyFile?: string; json?: boolean }) => {
      const rotated = await rotateSecrets(await useExistingStore(), options.newKeyFile);
      const data = { resealed: rotated.resealed, unreadable: rotated.unreadable.map((s) => ({ kind: s.purpose.name, id: s.id })), key_file: rotated.keyFile ?? null };
      printResult(options.json, data, () => rotationReport(rotated));
    });

  program
    .command('backup')
    .description('Copy the SQLite store to FILE while Mailroom serves, and its key file to FILE.key (PostgreSQL: pg_dump, see docs/secrets-and-backups.md)')
    .usage('--to FILE [--json]')
    .option('--to <FILE>', 'where the copy goes (it must not exist)')
    .option('--json', 'print {file, key_file, pages}')
    .action(async (options: { to?: string; json?: boolean }) => {
      const config = cliConfig();
      // Told once the store is found and the copy can be made: the refusals name what they refuse.
      const backup = await backupStore(config, required(options.to, '--to'), () => tellStore(config));
      printResult(options.json, { file: backup.file, key_file: backup.keyFile ?? null, pages: backup.pages }, () => backupReport(backup));
    });
}
