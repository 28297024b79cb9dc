import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { storeKindOfDb } from './database.js';
import * as initial from './migrations/0001-initial.js';
import * as sandboxMessages from './migrations/0002-sandbox-messages.js';
import * as deliveryHistory from './migrations/0003-delivery-history.js';
import * as suppressionsIndex from './migrations/0004-suppressions-index.js';
import * as inboundReports from './migrations/0005-inbound-reports.js';
import * as webhooks from './migrations/0006-webhooks.js';
import * as logSearch from './migrations/0007-log-search.js';
import * as messageDetail from './migrations/0008-message-detail.js';
import * as returnPathSigning from './migrations/0009-return-path-signing.js';
import * as coveringSearchIndexes from './migrations/0010-covering-search-indexes.js';
import * as people from './migrations/0011-people.js';
import * as sessions from './migrations/0012-sessions.js';
import * as setupTokens from './migrations/0013-setup-tokens.js';
import * as invitations from './migrations/0014-invitations.js';
import * as sendExtensions from './migrations/0015-send-extensions.js';
import * as apiKeyScopes from './migrations/0016-api-key-scopes.js';
import * as idempotencyKeys from './migrations/0017-idempotency-keys.js';
import * as tags from './migrations/0019-tags.js';
import * as scheduledSend from './migrations/0020-scheduled-send.js';
import * as attachments from './migrations/0018-attachments.js';
import * as retention from './migrations/0021-retention.js';
import * as partialTypeIndexes from './migrations/0022-partial-type-indexes.js';
import * as jobsKeyedByMessage from './migrations/0023-jobs-keyed-by-message.js';
import * as contentExpiryMark from './migrations/0024-content-expiry-mark.js';
import * as providerMessageIds from './migrations/0025-provider-message-ids.js';
import * as providerState from './migrations/0026-provider-state.js';
import * as snsNotifications from './migrations/0027-sns-notifications.js';
import * as upstreams from './migrations/0028-upstreams.js';
import * as templates from './migrations/0029-templates.js';
import * as tracking from './migrations/0030-tracking.js';

/** Numbered migrations, applied in order. Add new ones at the end, never edit a released one. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-sandbox-messages': sandboxMessages,
  '0003-delivery-history': deliveryHistory,
  '0004-suppressions-index': suppressionsIndex,
  '0005-inbound-reports': inboundReports,
  '0006-webhooks': webhooks,
  '0007-log-search': logSearch,
  '0008-message-detail': messageDetail,
  '0009-return-path-signing': returnPathSigning,
  '0010-covering-search-indexes': coveringSearchIndexes,
  '0011-people': people,
  '0012-sessions': sessions,
  '0013-setup-tokens': setupTokens,
  '0014-invitations': invitations,
  '0015-send-extensions': sendExtensions,
  '0016-api-key-scopes': apiKeyScopes,
  '0017-idempotency-keys': idempotencyKeys,
  '0019-tags': tags,
  '0020-scheduled-send': scheduledSend,
  '0018-attachments': attachments,
  '0021-retention': retention,
  '0022-partial-type-indexes': partialTypeIndexes,
  '0023-jobs-keyed-by-message': jobsKeyedByMessage,
  '0024-content-expiry-mark': contentExpiryMark,
  '0025-provider-message-ids': providerMessageIds,
  '0026-provider-state': providerState,
  '0027-sns-notifications': snsNotifications,
  '0028-upstreams': upstreams,
  '0029-templates': templates,
  '0030-tracking': tracking,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Names compare by code unit: Kysely's default, localeCompare, sets up ICU's collator at every start (a few ms) to order ASCII names. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const MIGRATION_TABLE = 'mailroom_migrations';

const migratorOf = (db: Kysely<any>) =>
  new Migrator({ db, provider, migrationTableName: MIGRATION_TABLE, migrationLockTableName: 'mailroom_migrations_lock', nameComparator: byName });

/** Whether the database holds a Mailroom store (its migrations table): a fresh database, or one of something else, does not. */
export async function holdsMigrations(db: Kysely<any>): Promise<boolean> {
  const query =
    storeKindOfDb(db) === 'postgres'
      ? sql<{ present: boolean }>`select to_regclass(${MIGRATION_TABLE}) is not null as present`
      : sql<{ present: boolean }>`select count(*) > 0 as present from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`;
  const { rows } = await query.execute(db);
  return Boolean(rows[0]?.present);
}

/** Throws, naming them, when migrations known to this code are not applied to the store (a readiness check). */
export async function assertMigrated(db: Kysely<any>): Promise<void> {
  const pending = (await migratorOf(db).getMigrations()).filter((m) => m.executedAt === undefined);
  if (pending.length > 0) throw new Error(`Pending migrations: ${pending.map((m) => m.name).join(', ')}`);
}

/** Applies every pending migration; returns the names applied now. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = migratorOf(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
