import type { Db } from '../db/database.js';
import type { WorkspacesTable } from '../db/schema.js';

export function createWorkspacesRepository(db: Db) {
  return {
    async insert(row: WorkspacesTable): Promise<void> {
      await db.insertInto('workspaces').values(row).execute();
    },
    async findById(id: string): Promise<WorkspacesTable | undefined> {
      return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    },
  };
}
