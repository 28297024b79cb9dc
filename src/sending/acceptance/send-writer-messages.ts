/** What the SQLite send writer thread (send-writer-thread.ts) and its parent (threaded-send-writer.ts) say to each other. */
import type { SqliteOptions } from '../../db/database.js';
import type { ClonedError } from '../../db/store-failure.js';
import type { SendWriteResult } from './accepted-sends.js';
import type { WireSend } from './packed-sends.js';

export interface SendWriterThreadData {
  dataDir: string;
  sqliteOptions: SqliteOptions;
}
export type SendWriterRequest = { type: 'write'; id: number; sends: WireSend[] } | { type: 'close' };
export type SendWriterReply =
  /** One result per send of the request, in order (errors as ClonedError: what survives structured clone). */
  | { type: 'written'; id: number; results: SendWriteResult[] }
  /** The thread could not start (the store would not open): it ends after this. */
  | { type: 'fatal'; error: ClonedError };
