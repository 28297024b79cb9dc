import type { Command } from 'commander';
import { NotFoundError } from '../lib/errors.js';
import { printResult } from '../cli/output.js';
import { withServices } from './store.js';

/** `mailroom sandbox show`: what the sandbox provider "delivered". */
export function registerSandboxCommands(program: Command): void {
  const sandbox = program.command('sandbox').description('Look at the messages the sandbox provider kept');

  sandbox
    .command('show')
    .description('Print a message the sandbox provider kept, as built (MIME)')
    .usage('MESSAGE_ID [--json]')
    .argument('<MESSAGE_ID>', 'the message (msg_…)')
    .option('--json', 'print {"message_id", "raw"}')
    .action(async (messageId: string, options: { json?: boolean }) => {
      const kept = await withServices((_services, store) => store.sandboxMessages.find(messageId));
      if (!kept) throw new NotFoundError(`The sandbox holds no message ${messageId}`);
      printResult(options.json, { message_id: messageId, raw: kept.raw }, () => (kept.raw.endsWith('\n') ? kept.raw : `${kept.raw}\n`));
    });
}
