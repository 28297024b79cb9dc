import type { Db } from '../db/database.js';
import type { WorkspacesTable } from '../db/schema.js';

export function createWorkspacesRepository(db: Db) {
  return {
    async insert(row: WorkspacesTable): Promise<void> {
      await db.insertInto('workspaces').values(row).execute();
    },
    /** Whether a workspace of that id was there to rename. */
    async rename(id: string, name: string): Promise<boolean> {
      const result = await db.updateTable('workspaces').set({ name }).where('id', '=', id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async findById(id: string): Promise<WorkspacesTable | undefined> {
      return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    },
    /** Every workspace, oldest first (ids sort by creation time). */
    async list(): Promise<WorkspacesTable[]> {
      return db.selectFrom('workspaces').selectAll().orderBy('id').execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    workspaces: ReturnType<typeof createWorkspacesRepository>;
  }
}
