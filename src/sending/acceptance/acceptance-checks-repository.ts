import { CompiledQuery } from 'kysely';
import { storeKindOfDb, type Db } from '../../db/database.js';

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

interface HoldRow {
  kind: 'key' | 'domain' | 'suppressed';
  id: string;
  email: string | null;
  reason: string | null;
}

/**
 * One text per store, whatever the batch: the lists go as arrays (PostgreSQL) or JSON (SQLite), not as
 * one parameter per value, so PostgreSQL keeps a single prepared statement (postgres-statements.ts
 * prepares a bounded number of texts) and SQLite a single compiled one.
 *
 * PostgreSQL holds the rows it found until the transaction ends, the keys `FOR KEY SHARE` (what a
 * foreign key takes: a concurrent delete waits) and the domains `FOR SHARE` (a concurrent change of
 * status waits). A UNION's branch may not take row locks; a WITH query may. SQLite's `BEGIN IMMEDIATE`
 * holds the whole store already.
 */
const POSTGRES_HOLD = `
  with held_keys as (select id from api_keys where id = any($1::text[]) for key share),
       held_domains as (select id from domains where id = any($2::text[]) and status = 'verified' for share)
  select 'key' as kind, id, null::text as email, null::text as reason from held_keys
  union all
  select 'domain', id, null, null from held_domains
  union all
  select 'suppressed', s.workspace_id, s.email, s.reason
    from unnest($3::text[], $4::text[]) as l(workspace_id, email)
    join suppressions s on s.workspace_id = l.workspace_id and s.email = l.email`;

const SQLITE_HOLD = `
  select 'key' as kind, id, null as email, null as reason from api_keys where id in (select value from json_each(?))
  union all
  select 'domain', id, null, null from domains where id in (select value from json_each(?)) and status = 'verified'
  union all
  select 'suppressed', s.workspace_id, s.email, s.reason
    from json_each(?) l
    join suppressions s on s.workspace_id = json_extract(l.value, '$[0]') and s.email = json_extract(l.value, '$[1]')`;

/**
 * The look-ups that decide how a batch of sends is written (accepted-sends.ts), in one statement: on
 * PostgreSQL every statement is a round trip, and a batch's round trips, each waiting on the last,
 * bound the send rate (bench/README.md, issue 19).
 */
export function createAcceptanceChecksRepository(db: Db) {
  const postgres = storeKindOfDb(db) === 'postgres';

  return {
    /**
     * Of `keyIds`, the keys that still exist; of `domainIds`, the domains still verified; both held
     * until the transaction ends, so that a deletion or a change of status cannot slip in before the
     * commit. And of `addresses`, those on their workspace's suppression list.
     */
    async hold({ keyIds, domainIds, addresses }: AcceptanceLookups): Promise<AcceptanceHolds> {
      const holds: AcceptanceHolds = { liveKeys: new Set(), verifiedDomains: new Set(), suppressed: new Map() };
      const workspaces: string[] = [];
      const emails: string[] = [];
      for (const [workspaceId, listed] of addresses) {
        holds.suppressed.set(workspaceId, new Map());
        for (const email of listed) {
          workspaces.push(workspaceId);
          emails.push(email);
        }
      }
      if (keyIds.length === 0 && domainIds.length === 0 && emails.length === 0) return holds;

      const query = postgres
        ? CompiledQuery.raw(POSTGRES_HOLD, [keyIds, domainIds, workspaces, emails])
        : CompiledQuery.raw(SQLITE_HOLD, [JSON.stringify(keyIds), JSON.stringify(domainIds), JSON.stringify(workspaces.map((w, i) => [w, emails[i]]))]);
      for (const row of (await db.executeQuery<HoldRow>(query)).rows) {
        if (row.kind === 'key') holds.liveKeys.add(row.id);
        else if (row.kind === 'domain') holds.verifiedDomains.add(row.id);
        else holds.suppressed.get(row.id)?.set(row.email!, row.reason!);
      }
      return holds;
    },
  };
}

declare module '../../db/store.js' {
  interface Repositories {
    acceptanceChecks: ReturnType<typeof createAcceptanceChecksRepository>;
  }
}
