import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, SessionsTable, SetupTokensTable } from '../db/schema.js';

/** The setup token of this hash, if it is unused and has not expired at `at`. */
const usableSetupToken = (tokenHash: string, at: string) => (eb: ExpressionBuilder<Database, 'setup_tokens'>) =>
  eb.and([eb('token_hash', '=', tokenHash), eb('used_at', 'is', null), eb('expires_at', '>', at)]);

/** Dashboard sessions (by the hash of their token) and the failed sign-ins the lock-out counts. */
export function createSessionsRepository(db: Db) {
  return {
    async insert(session: SessionsTable): Promise<void> {
      await db.insertInto('sessions').values(session).execute();
    },

    async find(tokenHash: string): Promise<SessionsTable | undefined> {
      return db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },

    async touch(tokenHash: string, lastSeenAt: string): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: lastSeenAt }).where('token_hash', '=', tokenHash).execute();
    },

    async delete(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },

    /** Ends every session of the user but the one named (none when undefined). */
    async deleteOthers(userId: string, keepTokenHash: string | undefined): Promise<number> {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (keepTokenHash !== undefined) query = query.where('token_hash', '!=', keepTokenHash);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Failed sign-ins for this address from this client since `since`, oldest first (their times). */
    async failuresSince(email: string, clientAddress: string, since: string): Promise<string[]> {
      const rows = await db
        .selectFrom('sign_in_failures')
        .select('failed_at')
        .where('email', '=', email)
        .where('client_address', '=', clientAddress)
        .where('failed_at', '>', since)
        .orderBy('failed_at')
        .execute();
      return rows.map((r) => r.failed_at);
    },

    /** Records a failure, and forgets every failure older than `forgetBefore` (the lock-out window's start). */
    async recordFailure(email: string, clientAddress: string, failedAt: string, forgetBefore: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('failed_at', '<=', forgetBefore).execute();
      await db.insertInto('sign_in_failures').values({ email, client_address: clientAddress, failed_at: failedAt }).execute();
    },

    /** Issues a setup link's token, in place of every earlier one not used. */
    async replaceSetupTokens(token: SetupTokensTable): Promise<void> {
      await db.deleteFrom('setup_tokens').where('used_at', 'is', null).execute();
      await db.insertInto('setup_tokens').values(token).execute();
    },

    /** Whether a setup token exists, is unused and has not expired at `at` (useSetupToken decides, in its transaction). */
    async setupTokenUsable(tokenHash: string, at: string): Promise<boolean> {
      const row = await db.selectFrom('setup_tokens').select('token_hash').where(usableSetupToken(tokenHash, at)).executeTakeFirst();
      return row !== undefined;
    },

    /** Marks a setup token used, if it exists, is unused and has not expired at `at`; whether it did. */
    async useSetupToken(tokenHash: string, at: string): Promise<boolean> {
      const result = await db.updateTable('setup_tokens').set({ used_at: at }).where(usableSetupToken(tokenHash, at)).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async clearFailures(email: string, clientAddress: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('email', '=', email).where('client_address', '=', clientAddress).execute();
    },
  };
}

declare module '../db/store.js' {
  interface Repositories {
    sessions: ReturnType<typeof createSessionsRepository>;
  }
}
