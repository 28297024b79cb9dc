import type { Command } from 'commander';
import { formatTable, printResult } from '../cli/output.js';
import { required, withServices } from './store.js';

interface KeyOptions {
  workspace?: string;
  json?: boolean;
}

/** `mailroom api-key create|list|delete`: an operator's way to a workspace's keys, e.g. after losing every one. */
export function registerApiKeyCommands(program: Command): void {
  const apiKey = program.command('api-key').description("Create, list and delete a workspace's API keys");

  apiKey
    .command('create')
    .description('Create another API key for a workspace (full_access by default; a sending_access key may be restricted to one domain)')
    .usage('--workspace ID --name NAME [--permission full_access|sending_access] [--domain-id ID] [--json]')
    .option('--workspace <ID>', 'the workspace')
    .option('--name <NAME>', "the key's name")
    .option('--permission <PERMISSION>', 'full_access or sending_access')
    .option('--domain-id <ID>', 'the only domain a sending_access key may send from')
    .option('--json', 'print the key as JSON, as POST /v1/api-keys answers it')
    .action(async (options: KeyOptions & { name?: string; permission?: string; domainId?: string }) => {
      const workspaceId = required(options.workspace, '--workspace');
      const name = required(options.name, '--name');
      const scope = { ...(options.permission ? { permission: options.permission } : {}), ...(options.domainId ? { domain_id: options.domainId } : {}) };
      const key = await withServices((services) => services.workspaces.createKey(workspaceId, name, scope));
      printResult(options.json, key, () => `API key ${key.id} created.\nAPI key (shown only now): ${key.key}\n`);
    });

  apiKey
    .command('list')
    .description("List a workspace's API keys, newest first (never the keys themselves)")
    .usage('--workspace ID [--json]')
    .option('--workspace <ID>', 'the workspace')
    .option('--json', 'print a JSON array, as GET /v1/api-keys answers it')
    .action(async (options: KeyOptions) => {
      const workspaceId = required(options.workspace, '--workspace');
      const keys = await withServices((services) => services.workspaces.listKeys(workspaceId));
      printResult(options.json, keys, () =>
        formatTable(
          ['ID', 'NAME', 'KEY', 'PERMISSION', 'CREATED', 'LAST USED'],
          keys.map((k) => [k.id, k.name, k.masked_key, k.domain_id ? `${k.permission} (${k.domain_id})` : k.permission, k.created_at, k.last_used_at ?? 'never']),
          `Workspace ${workspaceId} has no API keys`,
        ),
      );
    });

  apiKey
    .command('delete')
    .description('Delete an API key at once: it is refused from the next request on (the last full_access key too: create another with api-key create)')
    .usage('--workspace ID KEY_ID [--json]')
    .argument('<KEY_ID>', 'the key (key_…)')
    .option('--workspace <ID>', "the key's workspace")
    .option('--json', 'print {"id", "deleted": true}')
    .action(async (keyId: string, options: KeyOptions) => {
      const workspaceId = required(options.workspace, '--workspace');
      const deleted = await withServices((services) => services.apiKeys.remove(workspaceId, keyId));
      printResult(options.json, deleted, () => `API key ${keyId} deleted.\n`);
    });
}
