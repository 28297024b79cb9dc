import type { Command } from 'commander';
import { formatParsedFiles, parseInboundFiles } from '../inbound/index.js';

/** `mailroom inbound parse`: how Mailroom reads saved bounces, complaints and replies, without a server. */
export function registerInboundCommands(program: Command): void {
  const inbound = program.command('inbound').description('Classify inbound e-mail as Mailroom would');

  inbound
    .command('parse')
    .description('Classify saved bounce, complaint or reply e-mails (one JSON line per file with --json); exits 1 if a file could not be read')
    .usage('FILE... [--json]')
    .argument('<FILE...>', 'saved e-mails (.eml)')
    .option('--json', 'print one JSON line per file')
    .action(async (files: string[], options: { json?: boolean }) => {
      const parsed = await parseInboundFiles(files);
      process.stdout.write(formatParsedFiles(parsed, options.json ?? false));
      if (parsed.some((p) => p.error !== undefined)) process.exitCode = 1;
    });
}
