import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { UnreachableError } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { AppError, NotFoundError } from './errors.js';
import { formatParsedFiles, parseInboundFiles } from './inbound/parse-files.js';
import { createStore } from './repositories/index.js';
import { openMigratedDatabase, openReachableDatabase, startServer, startWorker } from './server.js';
import { createServices } from './services/index.js';
import { stopOnSignal } from './shutdown/stop-on-signal.js';
import { promptNewPassword, readPasswordFromStdin } from './password-input.js';
import { UsageError } from './usage-error.js';
import { backupReport, backupStore } from './operations/backup.js';
import { rotateSecrets, rotationReport } from './operations/rotate-secrets.js';

const HELP = `Usage: mailroom <command> [options]

Commands:
  serve                                  Run the HTTP API and the delivery worker (migrations are applied first)
  worker                                 Run the delivery worker alone (for API and workers on separate machines)
  migrate                                Apply pending database migrations and exit
  workspace create --name NAME [--json]  Create a workspace and its first API key
  api-key create --workspace ID --name NAME [--permission full_access|sending_access] [--domain-id ID] [--json]
                                         Create another API key for a workspace (full_access by default;
                                         a sending_access key may be restricted to one domain)
  user create --email EMAIL [--password-stdin] [--workspace ID --role ROLE] [--json]
                                         Create a dashboard user (asks for the password on a terminal,
                                         or reads it from standard input), optionally a member of a
                                         workspace as admin, developer or viewer
  sandbox show MESSAGE_ID                Print a message the sandbox provider kept, as built (MIME)
  inbound parse FILE... [--json]         Classify saved bounce, complaint or reply e-mails (one JSON line per file with --json)
  secrets rotate [--new-key-file FILE]   Re-encrypt DKIM keys and webhook secrets under a new key, with Mailroom
                                         stopped (made and written to the data dir's secret.key; with
                                         MAILROOM_SECRET_KEY set, give the new key in FILE and set it afterwards)
  backup --to FILE                       Copy the SQLite store to FILE while Mailroom serves, and its key file
                                         to FILE.key (PostgreSQL: pg_dump, see the README)
  help                                   Show this help

Configuration is read from the environment; see .env.example.
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      workspace: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      permission: { type: 'string' },
      'domain-id': { type: 'string' },
      'new-key-file': { type: 'string' },
      to: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  // `sandbox show` and `inbound parse` take operands (a message id, files); every other command takes options only.
  const [first, second, ...operands] = positionals;
  const command = first === 'sandbox' || first === 'inbound' ? [first, second].filter(Boolean).join(' ') : positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  const config = loadConfig();

  switch (command) {
    case 'serve': {
      const app = await startServer(config);
      stopOnSignal((signal) => {
        app.log.info({ signal }, 'shutting down');
        return app.close();
      }, config.shutdownGraceMs);
      return -1; // runs until a signal
    }
    case 'worker': {
      const worker = await startWorker(config);
      stopOnSignal((signal) => {
        worker.log.info({ signal }, 'shutting down');
        return worker.stop();
      }, config.shutdownGraceMs);
      return -1; // runs until a signal
    }
    case 'migrate': {
      const db = await openReachableDatabase(config);
      try {
        const applied = await migrateToLatest(db);
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'workspace create':
    case 'api-key create': {
      const db = await openMigratedDatabase(config);
      try {
        const workspaces = createServices(createStore(db), config).workspaces;
        if (command === 'workspace create') {
          const created = await workspaces.create(required(values.name, '--name'));
          process.stdout.write(
            values.json
              ? // Spaced exactly as DESIGN.md shows it; any JSON parser reads it too.
                `{"workspace_id": ${JSON.stringify(created.workspace_id)}, "api_key": ${JSON.stringify(created.api_key)}}\n`
              : `Workspace ${created.workspace_id} created.\nAPI key (shown only now): ${created.api_key}\n`,
          );
        } else {
          const scope = { ...(values.permission ? { permission: values.permission } : {}), ...(values['domain-id'] ? { domain_id: values['domain-id'] } : {}) };
          const key = await workspaces.createKey(required(values.workspace, '--workspace'), required(values.name, '--name'), scope);
          process.stdout.write(values.json ? `${JSON.stringify(key)}\n` : `API key ${key.id} created.\nAPI key (shown only now): ${key.key}\n`);
        }
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'user create': {
      const email = required(values.email, '--email');
      const password = values['password-stdin'] ? await readPasswordFromStdin() : await promptNewPassword();
      const db = await openMigratedDatabase(config);
      try {
        const user = await createServices(createStore(db), config).users.create({ email, password, workspaceId: values.workspace, role: values.role });
        const where = user.memberships.map((m) => `, ${m.role} of ${m.workspace_id}`).join('');
        process.stdout.write(values.json ? `${JSON.stringify(user)}\n` : `User ${user.id} (${user.email}) created${where}.\n`);
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'sandbox show': {
      const messageId = operands[0];
      if (!messageId || operands.length > 1) throw new UsageError('sandbox show takes one message id');
      const db = await openMigratedDatabase(config);
      try {
        const kept = await createStore(db).sandboxMessages.find(messageId);
        if (!kept) throw new NotFoundError(`The sandbox holds no message ${messageId}`);
        process.stdout.write(kept.raw.endsWith('\n') ? kept.raw : `${kept.raw}\n`);
      } finally {
        await db.destroy();
      }
      return 0;
    }
    case 'inbound parse': {
      if (operands.length === 0) throw new UsageError('inbound parse takes one or more files');
      const parsed = await parseInboundFiles(operands);
      process.stdout.write(formatParsedFiles(parsed, values.json));
      return parsed.some((p) => p.error !== undefined) ? 1 : 0;
    }
    case 'secrets rotate': {
      const rotated = await rotateSecrets(config, values['new-key-file']);
      process.stdout.write(rotationReport(rotated));
      return 0;
    }
    case 'backup': {
      const backup = await backupStore(config, required(values.to, '--to'));
      process.stdout.write(backupReport(backup));
      return 0;
    }
    default:
      process.stderr.write(`Unknown command: ${command}\n\n${HELP}`);
      return 2;
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof AppError || error instanceof UsageError || error instanceof UnreachableError;
    process.stderr.write(`mailroom: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
