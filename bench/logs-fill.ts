/**
 * Fills a migrated store with a realistic log for `npm run bench:logs`: 30
 * days of two-recipient messages ending now, with their `send` entries (most
 * delivered, some bounced, failed, suppressed, the newest still sent), the
 * bounce and complaint entries, the events and delivery attempts behind them,
 * webhook deliveries for a tenth of the events, and the all-time and hourly
 * counters exactly as the service would have kept them. Written straight into
 * the tables (better-sqlite3 prepared statements, or PostgreSQL's unnest), as
 * a million sends through the API would take an hour.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { ulid } from 'ulid';
import type { LogStatus, LogType } from '../src/db/schema.js';
import { countColumnOf, LOG_COUNT_COLUMNS } from '../src/stats/log-count-columns.js';

export const SENDERS = ['receipts@shop.example', 'alerts@shop.example', 'news@shop.example', 'billing@shop.example', 'hello@shop.example'];
/** Shares of the messages each sender sends: one sender carries half the log, as a real shop's receipts would. */
const SENDER_WEIGHTS = [0.5, 0.2, 0.15, 0.1, 0.05];
const DISTINCT_RECIPIENTS = 200_000;
const DAY_MS = 86_400_000;

export interface FillPlan {
  workspaceId: string;
  /** Log entries to write (about: messages come whole). */
  entries: number;
  days: number;
  now: number;
  webhookId: string;
}

/** What the benchmark's queries name: a message, a recipient, a sender of this workspace. */
export interface FillSample {
  messageIds: string[];
  recipient: string;
  sender: string;
  entries: number;
}

type Row = Record<string, string | number | null>;
interface TableBatch {
  table: string;
  columns: string[];
  rows: Row[];
}

/** Writes rows to one store; `finish` after the last. */
export interface RowSink {
  write(batches: TableBatch[]): Promise<void>;
  finish(): Promise<void>;
}

const id = (prefix: string, ms: number) => `${prefix}_${ulid(ms).toLowerCase()}`;

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function weighted<T>(values: readonly T[], weights: readonly number[], r: number): T {
  let acc = 0;
  for (let i = 0; i < values.length; i++) {
    acc += weights[i]!;
    if (r < acc) return values[i]!;
  }
  return values[values.length - 1]!;
}

/** Generates and writes the plan's rows in batches; returns what the queries will ask about. */
export async function fillLog(sink: RowSink, plan: FillPlan, seed = 1): Promise<FillSample> {
  const random = seeded(seed);
  const start = plan.now - plan.days * DAY_MS;
  // Two send entries a message, and bounce/complaint entries for about 3.2 % of them.
  const messages = Math.round(plan.entries / 2.064);
  const step = (plan.days * DAY_MS) / messages;
  const totals = new Map<string, number>();
  const hourly = new Map<string, Record<string, number>>();
  const count = (type: LogType, status: LogStatus, createdAt: string) => {
    totals.set(`${type}\0${status}`, (totals.get(`${type}\0${status}`) ?? 0) + 1);
    const hour = `${createdAt.slice(0, 13)}:00:00.000Z`;
    const row = hourly.get(hour) ?? Object.fromEntries(LOG_COUNT_COLUMNS.map((c) => [c.column, 0]));
    row[countColumnOf(type, status)]! += 1;
    hourly.set(hour, row);
  };
  const sample: FillSample = { messageIds: [], recipient: '', sender: SENDERS[0]!, entries: 0 };
  const ws = plan.workspaceId;
  let batch = newBatch();

  for (let m = 0; m < messages; m++) {
    const ms = Math.floor(start + m * step + random() * step);
    const at = new Date(ms).toISOString();
    const messageId = id('msg', ms);
    const sender = weighted(SENDERS, SENDER_WEIGHTS, random());
    const recipients = [0, 1].map(() => `user${Math.floor(random() * DISTINCT_RECIPIENTS)}@example.com`);
    // One tag a message, on 70 % of them `plan: free`: the tag filter's hard case, as a sender with half the log is.
    const tags = JSON.stringify({ plan: random() < 0.7 ? 'free' : 'pro' });
    if (m % 5000 === 0) sample.messageIds.push(messageId);
    if (m === Math.floor(messages / 2)) sample.recipient = recipients[0]!;
    batch.messages.push({
      id: messageId, workspace_id: ws, from_name: 'Shop', from_address: sender, reply_to: null, subject: `Order ${m}`,
      html: null, text: `Thank you for order ${m}. It ships tomorrow.`, recipients: JSON.stringify(recipients.map((address) => ({ name: '', address }))), tags, created_at: at,
    });
    const recent = plan.now - ms < 10 * 60_000;
    for (const recipient of recipients) {
      const r = random();
      const status: LogStatus = recent ? 'sent' : r < 0.9 ? 'delivered' : r < 0.94 ? 'bounced' : r < 0.96 ? 'failed' : r < 0.98 ? 'suppressed' : 'sent';
      const later = new Date(ms + 2_000).toISOString();
      const error = status === 'bounced' ? `550 5.1.1 <${recipient}>: Recipient address rejected: User unknown` : status === 'failed' ? 'Gave up after 10 attempts' : null;
      const entry = (type: LogType, entryStatus: LogStatus, created: string): Row => {
        const row = {
          id: id('log', Date.parse(created)), workspace_id: ws, message_id: messageId, type, status: entryStatus, recipient, from_email: sender,
          subject: `Order ${m}`, error: type === 'complaint' ? null : error, tags, created_at: created, updated_at: created,
        };
        batch.log_entry_tags.push({ workspace_id: ws, name: 'plan', value: JSON.parse(tags).plan, created_at: created, log_id: row.id });
        return row;
      };
      batch.log_entries.push(entry('send', status, at));
      count('send', status, at);
      if (status !== 'suppressed') {
        batch.delivery_attempts.push({
          id: id('att', ms + 1000), workspace_id: ws, message_id: messageId, recipient, attempt: 1, provider: 'smtp',
          outcome: status === 'bounced' ? 'permanent' : 'accepted', detail: '250 2.0.0 Ok: queued', duration_ms: 40, created_at: new Date(ms + 1000).toISOString(),
        });
      }
      const events: LogStatus[] = status === 'sent' ? [] : [status];
      if (status === 'bounced') {
        batch.log_entries.push(entry('bounce', 'bounced', later));
        count('bounce', 'bounced', later);
      }
      if (status === 'delivered' && random() < 0.002) {
        batch.log_entries.push(entry('complaint', 'complained', later));
        count('complaint', 'complained', later);
        events.push('complained');
      }
      for (const type of events) {
        const eventId = id('evt', ms + 2000);
        batch.message_events.push({ id: eventId, workspace_id: ws, message_id: messageId, type, recipient, payload: `{"event":"${type}"}`, created_at: later });
        if (random() < 0.1) {
          batch.webhook_deliveries.push({
            id: id('whd', ms + 2000), webhook_id: plan.webhookId, workspace_id: ws, event_id: eventId, event_type: type, payload: '{}', state: 'delivered',
            attempts: 1, available_at: later, lease_owner: null, lease_expires_at: null, last_status: 200, last_error: null, created_at: later, updated_at: later,
          });
        }
      }
    }
    if (batch.log_entries.length >= 20_000) {
      sample.entries += batch.log_entries.length;
      await sink.write(batchesOf(batch));
      batch = newBatch();
    }
  }
  sample.entries += batch.log_entries.length;
  await sink.write(batchesOf(batch));
  await sink.write([
    { table: 'log_counters', columns: ['workspace_id', 'type', 'status', 'count'], rows: [...totals].map(([k, n]) => { const [type, status] = k.split('\0'); return { workspace_id: ws, type: type!, status: status!, count: n }; }) },
    {
      table: 'log_hourly_counts',
      columns: ['workspace_id', 'hour', ...LOG_COUNT_COLUMNS.map((c) => c.column)],
      rows: [...hourly].map(([hour, counts]) => ({ workspace_id: ws, hour, ...counts })),
    },
  ]);
  return sample;
}

function newBatch() {
  return { messages: [] as Row[], log_entries: [] as Row[], log_entry_tags: [] as Row[], delivery_attempts: [] as Row[], message_events: [] as Row[], webhook_deliveries: [] as Row[] };
}

function batchesOf(batch: ReturnType<typeof newBatch>): TableBatch[] {
  return Object.entries(batch)
    .filter(([, rows]) => rows.length > 0)
    .map(([table, rows]) => ({ table, columns: Object.keys(rows[0]!), rows }));
}

/** Rows into the embedded store's file, on a connection of its own, a transaction per batch. */
export function sqliteSink(file: string): RowSink {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // a bulk load of throwaway data: durability is not what is measured
  const statements = new Map<string, SQLite.Statement>();
  const insert = (table: string, columns: string[]) => {
    const key = `${table}(${columns})`;
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare(`insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`);
      statements.set(key, statement);
    }
    return statement;
  };
  const writeAll = db.transaction((batches: TableBatch[]) => {
    for (const { table, columns, rows } of batches) {
      const statement = insert(table, columns);
      for (const row of rows) statement.run(columns.map((c) => row[c] ?? null));
    }
  });
  return {
    async write(batches) {
      writeAll(batches);
    },
    async finish() {
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

/** Rows into PostgreSQL: one `insert … select * from unnest(…)` per table and batch, each column an array. */
export function postgresSink(url: string): RowSink {
  const client = new pg.Client({ connectionString: url });
  let connected: Promise<void> | undefined;
  const types = new Map<string, string>();
  const typeOf = async (table: string, column: string) => {
    if (types.size === 0) {
      const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
        "select table_name, column_name, data_type from information_schema.columns where table_schema = 'public'",
      );
      for (const r of rows) types.set(`${r.table_name}.${r.column_name}`, r.data_type);
    }
    return types.get(`${table}.${column}`) ?? 'text';
  };
  return {
    async write(batches) {
      connected ??= client.connect().then(() => undefined);
      await connected;
      for (const { table, columns, rows } of batches) {
        const casts: string[] = [];
        for (const [i, c] of columns.entries()) casts.push(`$${i + 1}::${await typeOf(table, c)}[]`);
        await client.query(
          `insert into ${table} (${columns.join(', ')}) select * from unnest(${casts.join(', ')})`,
          columns.map((c) => rows.map((row) => row[c] ?? null)),
        );
      }
    },
    async finish() {
      if (!connected) return;
      // What autovacuum does after a load this size (PostgreSQL 13+ vacuums after inserts too), done now
      // so the figures are the steady state's: statistics for the plans, and the visibility map that lets
      // a count read the index alone instead of visiting a million rows' pages.
      await client.query('vacuum (analyze)');
      await client.end();
    },
  };
}
