import { sql, type RawBuilder } from 'kysely';
import { storeKindOfDb, type Db } from '../db/database.js';
import { paddedInLists } from '../db/padded-in-lists.js';

/** What a batch of accepted sends must look up, in the transaction that writes it. */
export interface AcceptanceLookups {
  /** API keys the sends were made with: those still existing are held until the transaction ends. */
  keyIds: string[];
  /** Sender domains the API remembered as verified: those still verified are held until the transaction ends. */
  domainIds: string[];
  /** Per workspace, the lower-cased addresses to look up on its suppression list. */
  addresses: Map<string, string[]>;
}

export interface AcceptanceHolds {
  liveKeys: Set<string>;
  verifiedDomains: Set<string>;
  /** Per workspace looked up, its suppressed addresses (lower-cased) → reason. */
  suppressed: Map<string, Map<string, string>>;
}

/** Bound values per statement: far below either store's limit (SQLite 32,766, PostgreSQL 65,535). */
const MAX_PARAMETERS = 4096;
/** Longest IN list of addresses. */
const MAX_ADDRESSES_PER_LIST = 512;

interface HoldRow {
  kind: 'key' | 'domain' | 'suppressed';
  id: string;
  email: string | null;
  reason: string | null;
}

/**
 * The look-ups that decide how a batch of sends is written (accepted-sends.ts), in as few statements
 * as fit (one for any usual batch): on PostgreSQL every statement is a round trip, and a batch's
 * round trips, each waiting on the last, bound the send rate (bench/README.md, issue 19).
 */
export function createAcceptanceChecksRepository(db: Db) {
  const postgres = storeKindOfDb(db) === 'postgres';
  // SQLite's BEGIN IMMEDIATE holds the whole store already.
  const keyLock = postgres ? sql` for key share` : sql``;
  const shareLock = postgres ? sql` for share` : sql``;
  const list = (values: string[]) => sql.join(values.map((v) => sql`${v}`));

  async function run(ctes: RawBuilder<unknown>[], branches: RawBuilder<unknown>[]): Promise<HoldRow[]> {
    const withClause = ctes.length > 0 ? sql`with ${sql.join(ctes)} ` : sql``;
    const { rows } = await sql<HoldRow>`${withClause}${sql.join(branches, sql` union all `)}`.execute(db);
    return rows;
  }

  return {
    /**
     * Of `keyIds`, the keys that still exist; of `domainIds`, the domains still verified; both held
     * (PostgreSQL: row locks) until the transaction ends, so that a deletion or a change of status
     * cannot slip in before the commit. And of `addresses`, those on their workspace's suppression list.
     */
    async hold({ keyIds, domainIds, addresses }: AcceptanceLookups): Promise<AcceptanceHolds> {
      const holds: AcceptanceHolds = { liveKeys: new Set(), verifiedDomains: new Set(), suppressed: new Map() };
      const ctes: RawBuilder<unknown>[] = [];
      const branches: RawBuilder<unknown>[] = [];
      let parameters = 0;
      // Locking clauses may not stand in a UNION's branch; in a WITH query they may.
      for (const ids of paddedInLists(keyIds, MAX_PARAMETERS / 4)) {
        const name = sql.ref(`held_keys_${ctes.length}`);
        ctes.push(sql`${name} as (select id from api_keys where id in (${list(ids)})${keyLock})`);
        branches.push(sql`select 'key' as kind, id, cast(null as text) as email, cast(null as text) as reason from ${name}`);
        parameters += ids.length;
      }
      for (const ids of paddedInLists(domainIds, MAX_PARAMETERS / 4)) {
        const name = sql.ref(`held_domains_${ctes.length}`);
        ctes.push(sql`${name} as (select id from domains where id in (${list(ids)}) and status = 'verified'${shareLock})`);
        branches.push(sql`select 'domain' as kind, id, cast(null as text) as email, cast(null as text) as reason from ${name}`);
        parameters += ids.length;
      }
      for (const [workspaceId, emails] of addresses) {
        holds.suppressed.set(workspaceId, new Map());
        for (const emailList of paddedInLists(emails, MAX_ADDRESSES_PER_LIST)) {
          if (branches.length > 0 && parameters + emailList.length + 1 > MAX_PARAMETERS) {
            for (const row of await run(ctes.splice(0), branches.splice(0))) collect(holds, row);
            parameters = 0;
          }
          branches.push(sql`select 'suppressed' as kind, workspace_id as id, email, reason from suppressions where workspace_id = ${workspaceId} and email in (${list(emailList)})`);
          parameters += emailList.length + 1;
        }
      }
      if (branches.length > 0) for (const row of await run(ctes, branches)) collect(holds, row);
      return holds;
    },
  };
}

function collect(holds: AcceptanceHolds, row: HoldRow): void {
  if (row.kind === 'key') holds.liveKeys.add(row.id);
  else if (row.kind === 'domain') holds.verifiedDomains.add(row.id);
  else holds.suppressed.get(row.id)?.set(row.email!, row.reason!);
}
