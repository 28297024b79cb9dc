/** What the SQLite engagement writer thread (engagement-writer-thread.ts) and its parent (threaded-engagement-writer.ts) say to each other. */
import type { SqliteOptions } from '../db/database.js';
import type { EngagementHit } from './engagement-recorder.js';

export interface EngagementWriterThreadData {
  dataDir: string;
  sqliteOptions: SqliteOptions;
}
export type EngagementWriterRequest = { type: 'write'; id: number; hits: EngagementHit[] } | { type: 'close' };
export type EngagementWriterReply = { type: 'written'; id: number } | { type: 'failed'; id: number; message: string };
