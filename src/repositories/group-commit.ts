import type { Db } from '../db/database.js';

type Work<R, T> = (repos: R) => Promise<T>;

interface Pending<R> {
  work: Work<R, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit. A commit costs more than the writes of a whole send, so
 * transactions that arrive while one is being committed are run together in
 * the next one: one BEGIN/COMMIT for the group, each work in a savepoint of its
 * own so that a failing one is rolled back alone. No caller is answered before
 * the commit that holds its writes, so durability is the same as one
 * transaction each; only the number of commits drops under load.
 */
export function createGroupCommitter<R>(db: Db, bind: (db: Db) => R) {
  let queue: Pending<R>[] = [];
  let running = false;

  async function runGroup(group: Pending<R>[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      const trx = await db.startTransaction().execute();
      try {
        if (group.length === 1) {
          // Alone in its group: the transaction itself is the savepoint.
          outcomes.push({ ok: true, value: await group[0]!.work(bind(trx)) });
        } else for (const pending of group) {
          const savepoint = await trx.savepoint('work').execute();
          try {
            const value = await pending.work(bind(savepoint));
            await savepoint.releaseSavepoint('work').execute();
            outcomes.push({ ok: true, value });
          } catch (error) {
            await savepoint.rollbackToSavepoint('work').execute();
            await savepoint.releaseSavepoint('work').execute();
            outcomes.push({ ok: false, error });
          }
        }
        await trx.commit().execute();
      } catch (error) {
        await trx.rollback().execute().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // The group's transaction itself failed: none of its writes are kept.
      for (const pending of group) pending.reject(error);
      return;
    }
    group.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }

  async function drain(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      await runGroup(group);
    }
    running = false;
  }

  return function transaction<T>(work: Work<R, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work: work as Work<R, unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (!running) void drain();
    });
  };
}
