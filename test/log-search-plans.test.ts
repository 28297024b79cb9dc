/**
 * Every log filter is served by an index: the store's own query plan for each
 * page and count query names the index it reads, and never a scan of the whole
 * table. Pages that the index can give in time order need no sort either.
 * The log holds a few thousand entries of two workspaces over 30 days. SQLite
 * plans without statistics, as Mailroom runs it; PostgreSQL after VACUUM
 * (ANALYZE) (autovacuum's job in production: the statistics, and the
 * visibility map an index-only scan needs), and, since its
 * planner rightly prefers a sequential scan of a table this small, with
 * sequential scans priced out (enable_seqscan off): what remains is what an
 * index can do, which is the question. bench/logs.ts prints the plans at a
 * million entries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { storeKindOfDb } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { logPageJsonQuery } from '../src/logs/log-page-json.js';
import type { LogFilter } from '../src/logs/log-search-repository.js';
import type { LogEntryRow } from '../src/logs/logs-repository.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const SINCE = '2026-11-05T10:00:00.000Z';

const MESSAGE = 'msg_01jx9c1r7t5b2n4m6p8q0r2s4t';

/** The tag filter's rows (log_entry_tags, migration 0019): SQLite's WITHOUT ROWID table is its key's b-tree, PostgreSQL's key index. */
const TAG_KEY = ['log_entry_tags_pk', 'SEARCH t USING PRIMARY KEY'];
const PRO = { name: 'plan', value: 'pro' };

/**
 * Each filter alone, and status with since: the indexes that may serve it
 * (either is as good), whether its page may need a sort (a message's few
 * entries), and whether its total is counted by a query (the others come
 * from the counters), and whether that count reads the index alone, without
 * visiting the entries (up to 1,001 of them for a recipient or a sender).
 */
const CASES: [string, LogFilter, string[], { sorts?: boolean; counted?: boolean; countsIndexAlone?: boolean }][] = [
  ['no filter', {}, ['log_entries_page_idx'], {}],
  ['type', { type: 'bounce' }, ['log_entries_type_idx'], {}],
  // Sends, nearly every entry, are not in the type indexes (migration 0022): the page's own index, or the status's.
  ['type send', { type: 'send' }, ['log_entries_page_idx'], {}],
  ['status', { status: 'failed' }, ['log_entries_status_idx'], {}],
  ['type and status', { type: 'bounce', status: 'bounced' }, ['log_entries_type_status_idx', 'log_entries_type_idx'], {}],
  ['type send and status', { type: 'send', status: 'failed' }, ['log_entries_status_idx'], {}],
  ['message_id', { message_id: MESSAGE }, ['log_entries_message_idx'], { sorts: true, counted: true }],
  ['to', { to: 'Ada@Example.com' }, ['log_entries_recipient_idx'], { counted: true, countsIndexAlone: true }],
  ['from_email', { from_email: 'hello@acme.example' }, ['log_entries_sender_idx'], { counted: true, countsIndexAlone: true }],
  ['since', { since: SINCE }, ['log_entries_page_idx'], {}],
  ['until', { until: SINCE }, ['log_entries_page_idx'], {}],
  ['status and since', { status: 'delivered', since: SINCE }, ['log_entries_status_idx'], {}],
  ['tag', { tag: PRO }, TAG_KEY, { counted: true, countsIndexAlone: true }],
  ['tag and since', { tag: PRO, since: SINCE }, TAG_KEY, { counted: true, countsIndexAlone: true }],
  ['tag and message_id', { tag: PRO, message_id: MESSAGE }, ['log_entries_message_idx'], { sorts: true, counted: true }],
];

describe('log search query plans', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    const other = await t.newWorkspace();
    const rows: LogEntryRow[] = [];
    const statuses = ['sent', 'delivered', 'delivered', 'delivered', 'bounced', 'failed', 'suppressed'] as const;
    for (let i = 0; i < 4000; i++) {
      const created = new Date(Date.parse('2026-10-22T00:00:00Z') + i * 647_000).toISOString();
      const type = i % 50 === 0 ? 'bounce' : i % 97 === 0 ? 'complaint' : 'send';
      rows.push({
        id: newId('log'), workspace_id: i % 10 === 0 ? other.workspaceId : t.workspaceId, message_id: i % 400 === 0 ? MESSAGE : newId('msg'),
        type, status: type === 'send' ? statuses[i % statuses.length]! : type === 'bounce' ? 'bounced' : 'complained',
        recipient: `user${i % 900}@example.com`, from_email: ['hello@acme.example', 'billing@acme.example', 'news@acme.example'][i % 3]!,
        subject: 'Plans', error: null, tags: [JSON.stringify({ plan: 'pro', env: 'prod' }), JSON.stringify({ plan: 'free' }), null][i % 3]!, created_at: created, updated_at: created,
      });
    }
    await t.store.transaction((repos) => repos.logs.insertMany(rows));
    if (storeKindOfDb(t.db) === 'postgres') {
      await sql`vacuum (analyze) log_entries`.execute(t.db);
      await sql`vacuum (analyze) log_entry_tags`.execute(t.db);
    }
  });
  after(() => t.close());

  async function planOf(query: Pick<Compilable<unknown>, 'compile'>): Promise<string> {
    const { sql: text, parameters } = query.compile();
    if (storeKindOfDb(t.db) === 'sqlite') {
      const rows = await t.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${text}`, [...parameters]));
      return rows.rows.map((r) => r.detail).join('\n');
    }
    return t.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${text}`, [...parameters]));
      return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  const scansTable = (plan: string) => /^SCAN log_entries$|SCAN log_entries(?! USING)|^SCAN t$|Seq Scan/m.test(plan);
  const sorts = (plan: string) => /TEMP B-TREE FOR ORDER BY|(^|\s)Sort\b/m.test(plan);

  // SQLite's COVERING INDEX (or the key of the tag rows' WITHOUT ROWID table, their only b-tree), PostgreSQL's
  // Index Only Scan (migration 0010 for expression indexes).
  const readsIndexAlone = (plan: string) => /USING COVERING INDEX|SEARCH t USING PRIMARY KEY|Index Only Scan/.test(plan);

  for (const [name, filter, indexes, { sorts: mayNeedSort = false, counted = false, countsIndexAlone = false }] of CASES) {
    it(`serves a page of ${name}${counted ? ' and its count' : ''} from ${indexes.join(' or ')}`, async () => {
      const page = await planOf(t.store.logSearch.pageQuery(t.workspaceId, filter, 50, 0));
      assert.ok(indexes.some((index) => page.includes(index)), `the page is read through ${indexes.join(' or ')}:\n${page}`);
      assert.ok(!scansTable(page), `no scan of the whole table:\n${page}`);
      if (!mayNeedSort) assert.ok(!sorts(page), `the index gives the order, no sort:\n${page}`);
      if (!counted) return;
      const count = await planOf(t.store.logSearch.countQuery(t.workspaceId, filter));
      assert.ok(indexes.some((index) => count.includes(index)) && !scansTable(count), `the count reads the index:\n${count}`);
      if (countsIndexAlone) assert.ok(readsIndexAlone(count), `the count reads the index alone:\n${count}`);
      if (!mayNeedSort) assert.ok(!sorts(count), `the count reads the index in its order, no sort:\n${count}`);
    });
  }

  it('takes the cursor of keyset paging as a bound of the index it reads, for every filter, so depth costs nothing', async () => {
    const after = { created_at: '2026-11-03T12:00:00.000Z', id: 'log_01m80000000000000000000000' }; // before SINCE, so below `until` too
    // The bound in the index search itself (SQLite's SEARCH …(created_at,id)<(?,?), PostgreSQL's Index Cond
    // with ROW(created_at, id) <), not a filter applied to rows read from the top of the log.
    // A tag filter's cursor bounds the tag rows' key the same way, (created_at, log_id).
    const boundInIndex = /\(created_at,(log_)?id\)<\(\?,\?\)\)|Index Cond: .*ROW\(created_at, (log_)?id\) </;
    for (const [name, filter] of CASES) {
      if (filter.message_id !== undefined) continue; // a message's few entries come off its own index
      const page = await planOf(t.store.logSearch.pageQuery(t.workspaceId, filter, 50, 0, after));
      assert.ok(!scansTable(page), `${name}: no scan of the whole table:\n${page}`);
      assert.match(page, boundInIndex, `${name}: the cursor bounds the index search:\n${page}`);
    }
  });

  it("counts a range from the hourly counts by their key, and the part hours at its ends off an index on the entries' time", async () => {
    const hours = await planOf(t.store.counters.hourlyTotalsQuery(t.workspaceId, SINCE, undefined));
    assert.ok(!/SCAN log_hourly_counts$|Seq Scan/m.test(hours) && /log_hourly_counts_pk|log_hourly_counts USING PRIMARY KEY/.test(hours), hours);
    const ends = await planOf(t.store.counters.entriesBetweenQuery(t.workspaceId, SINCE, '2026-11-05T10:30:00.000Z'));
    assert.ok(['log_entries_status_idx', 'log_entries_page_idx'].some((index) => ends.includes(index)) && !scansTable(ends), ends);
    // SQLite, planning without statistics: each (type, status) off the status index, which carries the type
    // (migration 0022), without visiting an entry or sorting them. PostgreSQL weighs the span by its statistics.
    if (storeKindOfDb(t.db) === 'sqlite') {
      assert.ok(ends.includes('log_entries_status_idx') && !/USING INDEX/.test(ends) && readsIndexAlone(ends) && !/TEMP B-TREE/.test(ends), ends);
    }
  });

  it("counts a type filter's part hours off the index its page reads", async () => {
    const range = { since: '2026-11-05T10:30:00.000Z', until: '2026-11-07T10:30:00.000Z' };
    for (const [filter, index] of [
      [{ ...range, type: 'bounce' }, 'log_entries_type_idx'],
      [{ ...range, type: 'complaint', status: 'complained' }, 'log_entries_type_status_idx'],
      [{ ...range, type: 'send', status: 'delivered' }, 'log_entries_status_idx'],
    ] as const) {
      const { logSearch } = t.store;
      const statement = logPageJsonQuery(t.db, logSearch.pageQuery(t.workspaceId, filter, 50, 0), t.workspaceId, filter, logSearch.countQuery(t.workspaceId, filter));
      const plan = await planOf({ compile: () => statement.compile(t.db) });
      assert.ok(plan.includes(index) && !scansTable(plan), `${JSON.stringify(filter)} reads ${index}:\n${plan}`);
    }
  });
});
