/**
 * The store every capability reads and writes through. `Repositories` starts
 * empty: each capability's repository file adds its own entry by declaration
 * merging (`declare module '…/db/store.js'`), the way Fastify's decorators
 * add to its instance type. So a service names the store without importing
 * the composition that builds it (src/composition/store.ts), and no import
 * circle runs through the store.
 */
export interface Repositories {}

export interface Store extends Repositories {
  /**
   * Runs `work` with repositories bound to one transaction: all of it commits, or none.
   * Inside `work`, use only the repositories given: on SQLite the store's own ones wait
   * for the single connection this transaction holds, and would wait forever.
   */
  transaction<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /**
   * Runs read-only `work` on one consistent snapshot: PostgreSQL's REPEATABLE
   * READ (its default READ COMMITTED gives each statement its own); on SQLite
   * every transaction is one snapshot already, and the settings are ignored.
   */
  snapshot<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  /** One round trip; throws when the store cannot be reached. */
  ping(): Promise<void>;
}
