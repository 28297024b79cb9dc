import { join } from 'node:path';

/**
 * The embedded store's file in MAILROOM_DATA_DIR. A module of its own, so the
 * WAL checkpointer thread can name the file without loading database.ts (Kysely,
 * pg and, through the configuration, TypeBox: some 25 MB of that thread's memory).
 */
export function sqliteFileOf(dataDir: string): string {
  return join(dataDir, 'mailroom.db');
}
