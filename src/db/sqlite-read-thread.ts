/**
 * Entry of the SQLite read thread (see sqlite-reader.ts): a read-only
 * connection of its own, which runs the compiled queries it is sent and
 * answers each one's first row.
 */
import SQLite from 'better-sqlite3';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { sqliteFileOf } from './sqlite-file.js';

export interface SqliteReadData {
  dataDir: string;
}
export interface ReadQuery {
  sql: string;
  parameters: readonly unknown[];
}
export type SqliteReadRequest = { type: 'read'; id: number; queries: ReadQuery[] } | { type: 'close' };
export type SqliteReadReply = { id: number; rows: (Record<string, unknown> | undefined)[] } | { id: number; error: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function run(port: MessagePort, { dataDir }: SqliteReadData): void {
  let sqlite: SQLite.Database | undefined;
  let openError: string | undefined;
  try {
    // Read-only: nothing sent here can write, whatever the SQL says.
    sqlite = new SQLite(sqliteFileOf(dataDir), { readonly: true, fileMustExist: true });
    // In WAL mode a reader waits only in rare moments (another connection recovering the WAL index).
    sqlite.pragma('busy_timeout = 5000');
  } catch (error) {
    openError = messageOf(error);
  }
  const statements = new Map<string, SQLite.Statement>();
  const prepared = (db: SQLite.Database, sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };

  port.on('message', (request: SqliteReadRequest) => {
    if (request.type === 'close') {
      sqlite?.close();
      port.close();
      return;
    }
    try {
      if (!sqlite) throw new Error(`the store would not open for reading: ${openError}`);
      const db = sqlite;
      const rows = request.queries.map((q) => prepared(db, q.sql).get(...q.parameters) as Record<string, unknown> | undefined);
      port.postMessage({ id: request.id, rows } satisfies SqliteReadReply);
    } catch (error) {
      port.postMessage({ id: request.id, error: messageOf(error) } satisfies SqliteReadReply);
    }
  });
}

if (parentPort) run(parentPort, workerData as SqliteReadData);
