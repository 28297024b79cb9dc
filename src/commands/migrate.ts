import type { Command } from 'commander';
import { migrateToLatest } from '../db/migrator.js';
import { openReachableDatabase } from '../composition/index.js';
import { printResult } from '../cli/output.js';
import { useOrCreateStore } from './store.js';

/** `mailroom migrate`: what every process does first, alone. */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .usage('[--json]')
    .option('--json', 'print {"applied": [names]}')
    .action(async (options: { json?: boolean }) => {
      const db = await openReachableDatabase(await useOrCreateStore());
      try {
        const applied = await migrateToLatest(db);
        printResult(options.json, { applied }, () => (applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n'));
      } finally {
        await db.destroy();
      }
    });
}
