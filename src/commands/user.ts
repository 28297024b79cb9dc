import type { Command } from 'commander';
import { promptNewPassword, readPasswordFromStdin } from '../lib/password-input.js';
import { formatTable, printResult } from '../cli/output.js';
import { required, withServices } from './store.js';

interface PasswordOptions {
  email?: string;
  passwordStdin?: boolean;
  json?: boolean;
}

/** The new password: piped in with --password-stdin, else asked twice at the terminal. */
function newPassword(options: PasswordOptions): Promise<string> {
  return options.passwordStdin ? readPasswordFromStdin() : promptNewPassword();
}

/** `mailroom user create|list|reset-password`: dashboard accounts, for an operator. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('Create, list and reset dashboard users');

  user
    .command('create')
    .description('Create a dashboard user (asks for the password on a terminal, or reads it from standard input), optionally a member of a workspace as admin, developer or viewer')
    .usage('--email EMAIL [--password-stdin] [--workspace ID --role ROLE] [--json]')
    .option('--email <EMAIL>', "the user's e-mail address, to sign in with")
    .option('--password-stdin', 'read the password from standard input (all of it, less a final line break)')
    .option('--workspace <ID>', 'a workspace to make the user a member of, with --role')
    .option('--role <ROLE>', 'admin, developer or viewer')
    .option('--json', 'print {id, email, memberships} as JSON')
    .action(async (options: PasswordOptions & { workspace?: string; role?: string }) => {
      const email = required(options.email, '--email');
      const password = await newPassword(options);
      const created = await withServices((services) => services.users.create({ email, password, workspaceId: options.workspace, role: options.role }));
      const where = created.memberships.map((m) => `, ${m.role} of ${m.workspace_id}`).join('');
      printResult(options.json, created, () => `User ${created.id} (${created.email}) created${where}.\n`);
    });

  user
    .command('list')
    .description('List every dashboard user and their workspaces, oldest first')
    .usage('[--json]')
    .option('--json', 'print a JSON array of {id, email, created_at, memberships}')
    .action(async (options: { json?: boolean }) => {
      const users = await withServices((services) => services.users.list());
      printResult(options.json, users, () =>
        formatTable(
          ['ID', 'E-MAIL', 'CREATED', 'WORKSPACES'],
          users.map((u) => [u.id, u.email, u.created_at, u.memberships.map((m) => `${m.workspace_id} (${m.role})`).join(', ') || '-']),
          'No users yet: mailroom user create --email EMAIL',
        ),
      );
    });

  user
    .command('reset-password')
    .description('Set a new password for a user who lost theirs, and sign them out everywhere')
    .usage('--email EMAIL [--password-stdin] [--json]')
    .option('--email <EMAIL>', "the user's e-mail address")
    .option('--password-stdin', 'read the new password from standard input (all of it, less a final line break)')
    .option('--json', 'print {id, email, ended_sessions} as JSON')
    .action(async (options: PasswordOptions) => {
      const email = required(options.email, '--email');
      const password = await newPassword(options);
      const reset = await withServices((services) => services.users.resetPassword(email, password));
      printResult(options.json, reset, () => `Password of ${reset.id} (${reset.email}) reset; ${reset.ended_sessions} session(s) ended.\n`);
    });
}
