import type { Command } from 'commander';
import { formatTable, printResult } from '../cli/output.js';
import { required, withServices } from './store.js';

/** `mailroom workspace create|list`. */
export function registerWorkspaceCommands(program: Command): void {
  const workspace = program.command('workspace').description('Create and list workspaces');

  workspace
    .command('create')
    .description('Create a workspace and its first API key (the key is shown only now)')
    .usage('--name NAME [--json]')
    .option('--name <NAME>', "the workspace's name")
    .option('--json', 'print {"workspace_id", "api_key"} and nothing else')
    .action(async (options: { name?: string; json?: boolean }) => {
      const name = required(options.name, '--name');
      const created = await withServices((services) => services.workspaces.create(name));
      process.stdout.write(
        options.json
          ? // Spaced exactly as DESIGN.md shows it; any JSON parser reads it too.
            `{"workspace_id": ${JSON.stringify(created.workspace_id)}, "api_key": ${JSON.stringify(created.api_key)}}\n`
          : `Workspace ${created.workspace_id} created.\nAPI key (shown only now): ${created.api_key}\n`,
      );
    });

  workspace
    .command('list')
    .description('List every workspace, oldest first')
    .usage('[--json]')
    .option('--json', 'print a JSON array of {id, name, created_at}')
    .action(async (options: { json?: boolean }) => {
      const workspaces = await withServices((services) => services.workspaces.list());
      printResult(options.json, workspaces, () =>
        formatTable(['ID', 'NAME', 'CREATED'], workspaces.map((w) => [w.id, w.name, w.created_at]), 'No workspaces yet: mailroom workspace create --name NAME'),
      );
    });
}
