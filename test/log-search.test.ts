/**
 * Log search, statistics over a range and the time series, checked against
 * an oracle: a few hundred entries of two workspaces with known times,
 * recipients, senders, types and statuses are written through the real
 * repositories (the transaction that moves the counters), some then moved
 * along the status table, and every answer is compared with what filtering
 * the same entries in memory gives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LogStatus, LogType } from '../src/db/schema.js';
import { newId } from '../src/lib/ids.js';
import type { LogEntryRow } from '../src/logs/logs-repository.js';
import { moveSendEntry } from '../src/sending/send-status-service.js';
import { bucketStarts } from '../src/stats/stats-service.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const HOUR = 3_600_000;
/** The span the entries lie in: three days from midnight, 2026-11-20. */
const START = Date.parse('2026-11-20T00:00:00.000Z');
const SPAN = 3 * 24 * HOUR;

/** A small seeded generator, so a failure reproduces. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const RECIPIENTS = ['ada@example.com', 'Ada@Example.com', 'bob@example.org', 'cyd@example.net', 'xada@example.com'];
const SENDERS = ['hello@acme.example', 'Billing@Acme.example', 'news@other.example'];
const STATUS_OF: Record<LogType, LogStatus[]> = { send: ['sent'], bounce: ['bounced'], complaint: ['complained'] };

interface Filter {
  type?: LogType;
  status?: LogStatus;
  message_id?: string;
  to?: string;
  from_email?: string;
  since?: string;
  until?: string;
}

function matches(e: LogEntryRow, f: Filter): boolean {
  return (
    (!f.type || e.type === f.type) &&
    (!f.status || e.status === f.status) &&
    (f.message_id === undefined || e.message_id === f.message_id) &&
    (f.to === undefined || e.recipient.toLowerCase() === f.to.toLowerCase()) &&
    (f.from_email === undefined || e.from_email.toLowerCase() === f.from_email.toLowerCase()) &&
    (f.since === undefined || e.created_at >= f.since) &&
    (f.until === undefined || e.created_at < f.until)
  );
}

const newestFirst = (a: LogEntryRow, b: LogEntryRow) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);

function statsOf(entries: LogEntryRow[]) {
  const n = (f: Filter) => entries.filter((e) => matches(e, f)).length;
  return {
    total_sent: n({ type: 'send' }),
    delivered: n({ type: 'send', status: 'delivered' }),
    bounced: n({ type: 'send', status: 'bounced' }),
    complained: n({ type: 'complaint' }),
    suppressed: n({ type: 'send', status: 'suppressed' }),
    failed: n({ type: 'send', status: 'failed' }),
  };
}

describe('log search, stats over a range and the time series', () => {
  let t: TestApp;
  let other: { workspaceId: string; apiKey: string };
  /** The entries as they are now (after the status moves), per workspace. */
  const entries = new Map<string, LogEntryRow[]>();
  const messageIds: string[] = [];
  const random = seeded(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

  before(async () => {
    t = await createTestApp({ RATE_LIMIT_OTHER_PER_MIN: '1000000' });
    other = await t.newWorkspace();
    for (let i = 0; i < 24; i++) messageIds.push(newId('msg'));
    for (const workspaceId of [t.workspaceId, other.workspaceId]) {
      const rows: LogEntryRow[] = [];
      for (let i = 0; i < (workspaceId === t.workspaceId ? 320 : 80); i++) {
        const type = random() < 0.8 ? 'send' : pick(['bounce', 'complaint'] as const);
        // Some entries exactly on the hour, the rest anywhere in it.
        const ms = START + (random() < 0.1 ? Math.floor(random() * 72) * HOUR : Math.floor(random() * SPAN));
        const at = new Date(ms).toISOString();
        rows.push({
          id: newId('log'), workspace_id: workspaceId, message_id: pick(messageIds), type, status: STATUS_OF[type][0]!,
          recipient: pick(RECIPIENTS), from_email: pick(SENDERS), subject: 'Search me', error: null, tags: null, created_at: at, updated_at: at,
        });
      }
      await t.store.transaction((repos) => repos.logs.insertMany(rows));
      entries.set(workspaceId, rows);
    }
    // Move a third of the send entries on, as the worker and inbound reports do: the counters of the hour each was created in move with them.
    const mine = entries.get(t.workspaceId)!;
    for (const entry of mine.filter((e) => e.type === 'send')) {
      if (random() > 0.33) continue;
      const to = pick(['delivered', 'bounced', 'failed', 'suppressed'] as const);
      const move = to === 'delivered' ? { to, detail: null } : to === 'suppressed' ? { to, detail: 'listed', reason: 'manual' } : { to, detail: 'refused' };
      assert.equal(await t.store.transaction((repos) => moveSendEntry(repos, entry, move)), 'move');
      Object.assign(entry, { status: to, error: move.detail });
    }
  });
  after(() => t.close());

  async function search(query: string, key = t.apiKey) {
    const ids: string[] = [];
    let total: string | undefined;
    for (let offset = 0; ; offset += 100) {
      const res = await t.call('GET', `/v1/send/logs?limit=100&offset=${offset}${query ? `&${query}` : ''}`, { key });
      assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
      total = res.headers['x-total-count'] as string;
      const page = res.json().data as { id: string }[];
      ids.push(...page.map((e) => e.id));
      // Never more than the total: paging that did not move on would otherwise go on for ever.
      if (page.length < 100 || ids.length > Number(total)) break;
    }
    return { ids, total: Number(total) };
  }

  async function expectSearch(filter: Filter, workspaceId = t.workspaceId, key = t.apiKey) {
    const query = new URLSearchParams(filter as Record<string, string>).toString();
    const expected = entries.get(workspaceId)!.filter((e) => matches(e, filter)).sort(newestFirst).map((e) => e.id);
    const got = await search(query, key);
    assert.deepEqual(got.ids, expected, `entries of ?${query}`);
    assert.equal(got.total, expected.length, `X-Total-Count of ?${query}`);
  }

  const at = (hours: number, minutes = 0) => new Date(START + hours * HOUR + minutes * 60_000).toISOString();

  it('filters by each new parameter alone: message_id, to and from_email (case-insensitive, exact), since, until', async () => {
    await expectSearch({ message_id: messageIds[3]! });
    await expectSearch({ to: 'ADA@example.COM' });
    await expectSearch({ to: 'ada@example.co' });
    await expectSearch({ from_email: 'billing@acme.example' });
    await expectSearch({ since: at(30, 17) });
    await expectSearch({ until: at(41) });
    await expectSearch({ since: at(12), until: at(13) });
  });

  it('counts `since` in and `until` out: an entry exactly at either end', async () => {
    const onTheHour = entries.get(t.workspaceId)!.find((e) => e.created_at.endsWith(':00:00.000Z'))!;
    const first = (await search(`since=${onTheHour.created_at}&until=${at(72)}`)).ids;
    assert.ok(first.includes(onTheHour.id), 'since is inclusive');
    const last = (await search(`since=${at(0)}&until=${onTheHour.created_at}`)).ids;
    assert.ok(!last.includes(onTheHour.id), 'until is exclusive');
  });

  it('combines every filter with every other, and with type and status, with exact totals', async () => {
    const choices: Array<() => Filter> = [
      () => ({ type: pick(['send', 'bounce', 'complaint'] as const) }),
      () => ({ status: pick(['sent', 'delivered', 'bounced', 'failed', 'suppressed', 'complained'] as const) }),
      () => ({ message_id: pick(messageIds) }),
      () => ({ to: pick(RECIPIENTS).toUpperCase() }),
      () => ({ from_email: pick(SENDERS) }),
      () => ({ since: at(Math.floor(random() * 60), pick([0, 0, 13, 59])) }),
      () => ({ until: at(12 + Math.floor(random() * 60), pick([0, 30])) }),
    ];
    for (let round = 0; round < 40; round++) {
      const filter: Filter = {};
      for (const choice of choices) if (random() < 0.4) Object.assign(filter, choice());
      if (filter.since && filter.until && filter.until <= filter.since) delete filter.until;
      await expectSearch(filter);
    }
    await expectSearch({ status: 'delivered', since: at(24, 30) });
    await expectSearch({ type: 'send', status: 'sent', since: at(2, 59), until: at(3, 1) });
  });

  it('pages after a cursor (`before`, a log entry id) through the same entries as offsets do, with every filter, and refuses a stranger id', async () => {
    // Pages of 37 walked by cursor: entries sharing a millisecond are split across pages, in (created_at, id) order.
    const walk = async (query: string) => {
      const ids: string[] = [];
      for (let before = ''; ; ) {
        const res = await t.call('GET', `/v1/send/logs?limit=37${before ? `&before=${before}` : ''}${query ? `&${query}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const page = (res.json().data as { id: string }[]).map((e) => e.id);
        ids.push(...page);
        // Never more than the workspace has: paging that did not move on would otherwise go on for ever.
        if (page.length < 37 || ids.length > entries.get(t.workspaceId)!.length) return ids;
        before = page.at(-1)!;
      }
    };
    for (const filter of [{}, { status: 'bounced' }, { to: 'ada@example.com' }, { since: at(10), until: at(40) }, { type: 'send', until: at(30) }] as Filter[]) {
      const query = new URLSearchParams(filter as Record<string, string>).toString();
      const expected = entries.get(t.workspaceId)!.filter((e) => matches(e, filter)).sort(newestFirst).map((e) => e.id);
      assert.deepEqual(await walk(query), expected, `?${query}`);
    }
    const mine = entries.get(t.workspaceId)!.sort(newestFirst);
    const theirs = [...entries.keys()].find((id) => id !== t.workspaceId)!;
    const stranger = await t.call('GET', `/v1/send/logs?before=${entries.get(theirs)![0]!.id}`);
    assert.deepEqual([stranger.statusCode, stranger.json().error], [400, 'before must be the id of a log entry of this workspace']);
    // A cursor and an `until` above it: the cursor decides; below it, `until` does.
    const cursor = mine[10]!;
    const above = (await t.call('GET', `/v1/send/logs?limit=5&before=${cursor.id}&until=${new Date(Date.parse(cursor.created_at) + HOUR).toISOString()}`)).json().data;
    assert.deepEqual(above.map((e: { id: string }) => e.id), mine.slice(11, 16).map((e) => e.id));
  });

  it('keeps each workspace to its own entries', async () => {
    await expectSearch({ to: 'ada@example.com' }, other.workspaceId, other.apiKey);
    await expectSearch({ since: at(10), until: at(50) }, other.workspaceId, other.apiKey);
    await expectSearch({ message_id: messageIds[3]! }, other.workspaceId, other.apiKey);
  });

  const refusals: [string, string, string][] = [
    ['/v1/send/logs?statsu=failed', 'statsu is not a supported query parameter', 'an unknown parameter'],
    ['/v1/send/logs?since=yesterday', 'since must be an ISO 8601 date or date-time, such as 2026-11-22 or 2026-11-22T10:00:00Z', 'a bad since'],
    ['/v1/send/logs?until=2026-02-30', 'until must be an ISO 8601 date or date-time, such as 2026-11-22 or 2026-11-22T10:00:00Z', 'an impossible date'],
    ['/v1/send/logs?since=2026-11-22&until=2026-11-22', 'until must be later than since', 'an empty range'],
    ['/v1/send/logs?to=', 'to must not be empty', 'an empty recipient'],
    ['/v1/send/stats?from=2026-11-22', 'from is not a supported query parameter', 'an unknown stats parameter'],
    ['/v1/send/stats?since=2026-11-23T00:00:00Z&until=2026-11-22T00:00:00Z', 'until must be later than since', 'a range backwards'],
    ['/v1/send/stats/timeseries?interval=minute', 'interval must be one of hour, day', 'an unknown interval'],
    ['/v1/send/stats/timeseries?interval=hour&since=2026-01-01&until=2026-03-01', 'The range holds 1416 hours; a time series has at most 744 buckets', 'too many buckets'],
    ['/v1/domains?page=2', 'page is not a supported query parameter', 'a parameter on a route that takes none'],
    ['/v1/suppressions?limt=5', 'limt is not a supported query parameter', 'a typo on another route'],
  ];
  for (const [url, error, what] of refusals) {
    it(`answers 400 for ${what}: ${url}`, async () => {
      const res = await t.call('GET', url);
      assert.deepEqual([res.statusCode, res.json()], [400, { success: false, error }]);
    });
  }

  it('reads since and until in any ISO 8601 form: a date, a time without seconds, an offset', async () => {
    const a = await search('since=2026-11-21&until=2026-11-21T13:30%2B01:00');
    const b = await search(`since=${at(24)}&until=${at(36, 30)}`);
    assert.deepEqual(a, b);
  });

  it('answers stats for a range that agree with the logs of the same range, and the all-time stats as before', async () => {
    const mine = entries.get(t.workspaceId)!;
    const ranges: Filter[] = [{}, { since: at(5, 17) }, { until: at(60, 1) }, { since: at(10), until: at(34) }, { since: at(10, 5), until: at(10, 55) }, { since: at(10, 30), until: at(11, 20) }];
    for (const range of ranges) {
      const query = new URLSearchParams(range as Record<string, string>).toString();
      const stats = (await t.call('GET', `/v1/send/stats${query ? `?${query}` : ''}`)).json().data;
      assert.deepEqual(stats, statsOf(mine.filter((e) => matches(e, range))), `stats ?${query}`);
      const total = async (f: string) => Number((await t.call('GET', `/v1/send/logs?${f}${query ? `&${query}` : ''}`)).headers['x-total-count']);
      assert.equal(stats.total_sent, await total('type=send'));
      assert.equal(stats.delivered, await total('type=send&status=delivered'));
      assert.equal(stats.complained, await total('type=complaint'));
    }
  });

  it('answers an hourly time series, zero-filled, whose buckets agree with the logs of each hour', async () => {
    const mine = entries.get(t.workspaceId)!;
    const seriesOf = async (since: string, until: string) => {
      const res = await t.call('GET', `/v1/send/stats/timeseries?interval=hour&since=${since}&until=${until}`);
      assert.equal(res.statusCode, 200, res.body);
      const series = res.json().data as Array<{ bucket_start: string }>;
      for (const bucket of series) {
        const hour = { since: bucket.bucket_start, until: new Date(Date.parse(bucket.bucket_start) + HOUR).toISOString() };
        assert.deepEqual(bucket, { bucket_start: bucket.bucket_start, ...statsOf(mine.filter((e) => matches(e, hour))) });
      }
      return series;
    };
    const everyHourHasEntries = (series: Array<{ bucket_start: string }>) =>
      series.every((b) => mine.some((e) => e.created_at >= b.bucket_start && e.created_at < new Date(Date.parse(b.bucket_start) + HOUR).toISOString()));
    // Widened to whole hours: 20:00 up to 31:00; every one of them has entries (the series is read off their rows).
    const busy = await seriesOf(at(20, 40), at(30, 10));
    assert.deepEqual(busy.map((b) => b.bucket_start), Array.from({ length: 11 }, (_, i) => at(20 + i)));
    assert.ok(everyHourHasEntries(busy));
    // Running past the last entry: some hours have none, and are zero-filled in order.
    const tail = await seriesOf(at(66), at(80));
    assert.deepEqual(tail.map((b) => b.bucket_start), Array.from({ length: 14 }, (_, i) => at(66 + i)));
    assert.ok(!everyHourHasEntries(tail) && tail.some((b) => (b as { total_sent?: number }).total_sent! > 0));
    const empty = await seriesOf('2026-01-01T00:00:00Z', '2026-01-01T03:00:00Z');
    assert.deepEqual(empty.map((b) => Object.values(b).slice(1)), Array(3).fill([0, 0, 0, 0, 0, 0]));
  });

  it('answers a daily time series, and by default the last 30 days ending with today', async () => {
    const mine = entries.get(t.workspaceId)!;
    const series = (await t.call('GET', `/v1/send/stats/timeseries?interval=day&since=2026-11-19&until=2026-11-24`)).json().data as Array<{ bucket_start: string }>;
    assert.equal(series.length, 5);
    for (const bucket of series) {
      const day = { since: bucket.bucket_start, until: new Date(Date.parse(bucket.bucket_start) + 24 * HOUR).toISOString() };
      assert.deepEqual(bucket, { bucket_start: bucket.bucket_start, ...statsOf(mine.filter((e) => matches(e, day))) });
    }
    const byDefault = (await t.call('GET', '/v1/send/stats/timeseries')).json().data as Array<{ bucket_start: string }>;
    assert.equal(byDefault.length, 30);
    const tomorrow = new Date(Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR).toISOString();
    assert.equal(Date.parse(byDefault.at(-1)!.bucket_start) + 24 * HOUR, Date.parse(tomorrow));
  });

  it('counts a sender, recipient or message filter exactly up to 1,000 matches, and says "at least 1,000" beyond', async () => {
    const ws = await t.newWorkspace();
    const rows: LogEntryRow[] = Array.from({ length: 1_001 }, (_, i) => {
      const created = new Date(START + i * 1000).toISOString();
      return {
        id: newId('log'), workspace_id: ws.workspaceId, message_id: newId('msg'), type: 'send', status: 'sent', recipient: `r${i % 3}@example.com`,
        from_email: 'bulk@acme.example', subject: 's', error: null, tags: null, created_at: created, updated_at: created,
      };
    });
    await t.store.transaction((repos) => repos.logs.insertMany(rows));
    const headersOf = async (query: string) => {
      const res = await t.call('GET', `/v1/send/logs?${query}`, { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      return [res.headers['x-total-count'], res.headers['x-total-count-relation']];
    };
    assert.deepEqual(await headersOf('from_email=bulk@acme.example'), ['1000', 'gte']);
    assert.deepEqual(await headersOf(`from_email=bulk@acme.example&until=${new Date(START + 1_000_000).toISOString()}`), ['1000', 'eq'], 'exactly 1,000 is exact');
    assert.deepEqual(await headersOf('to=r1@example.com'), ['334', 'eq']);
    assert.deepEqual(await headersOf('type=send'), ['1001', 'eq'], 'counters are exact at any size');
  });

  it('names every bucket as toISOString would, across days, months and years', () => {
    for (const [since, count, interval, ms] of [['2026-12-30T13:00:00.000Z', 744, 'hour', HOUR], ['2024-02-20T00:00:00.000Z', 744, 'day', 24 * HOUR]] as const) {
      const expected = Array.from({ length: count }, (_, i) => new Date(Date.parse(since) + i * ms).toISOString());
      assert.deepEqual(bucketStarts(since, count, interval), expected);
    }
  });

  it('reads ranges from the hourly counters, not by counting entries: whole hours stay counted when their entries are gone', async () => {
    const ws = await t.newWorkspace();
    const row = (created: string): LogEntryRow => ({
      id: newId('log'), workspace_id: ws.workspaceId, message_id: newId('msg'), type: 'send', status: 'sent', recipient: 'r@example.com',
      from_email: 'hello@acme.example', subject: 's', error: null, tags: null, created_at: created, updated_at: created,
    });
    await t.store.transaction((repos) => repos.logs.insertMany([row(at(1, 10)), row(at(1, 50)), row(at(2, 5))]));
    // Behind the counters' back: a count of entries would now find none.
    await t.db.deleteFrom('log_entries').where('workspace_id', '=', ws.workspaceId).execute();
    const stats = (await t.call('GET', `/v1/send/stats?since=${at(1)}&until=${at(3)}`, { key: ws.apiKey })).json().data;
    assert.equal(stats.total_sent, 3);
    const series = (await t.call('GET', `/v1/send/stats/timeseries?interval=hour&since=${at(1)}&until=${at(3)}`, { key: ws.apiKey })).json().data;
    assert.deepEqual(series.map((b: { total_sent: number }) => b.total_sent), [2, 1]);
    assert.equal((await t.call('GET', `/v1/send/logs?since=${at(1)}&until=${at(3)}`, { key: ws.apiKey })).headers['x-total-count'], '3');
  });

  it('counts the part hours of a range by type and status: a bounced send and a bounce are told apart', async () => {
    const ws = await t.newWorkspace();
    const row = (type: LogType, status: LogStatus, minutes: number): LogEntryRow => ({
      id: newId('log'), workspace_id: ws.workspaceId, message_id: newId('msg'), type, status, recipient: 'r@example.com',
      from_email: 'hello@acme.example', subject: 's', error: null, tags: null, created_at: at(5, minutes), updated_at: at(5, minutes),
    });
    // Within one hour, so that a range inside it is all part hour: every entry is counted off the log itself.
    const rows = [
      row('send', 'bounced', 10), row('send', 'bounced', 11), row('bounce', 'bounced', 12), row('bounce', 'bounced', 13), row('bounce', 'bounced', 14),
      row('complaint', 'complained', 15), row('send', 'delivered', 16), row('send', 'failed', 17), row('send', 'sent', 50),
    ];
    await t.store.transaction((repos) => repos.logs.insertMany(rows));
    const stats = async (since: string, until: string) => (await t.call('GET', `/v1/send/stats?since=${since}&until=${until}`, { key: ws.apiKey })).json().data;
    assert.deepEqual(await stats(at(5, 5), at(5, 40)), { total_sent: 4, delivered: 1, bounced: 2, complained: 1, suppressed: 0, failed: 1 });
    assert.deepEqual(await stats(at(5, 12), at(5, 16)), { total_sent: 0, delivered: 0, bounced: 0, complained: 1, suppressed: 0, failed: 0 });
    const total = async (query: string) => (await t.call('GET', `/v1/send/logs?since=${at(5, 5)}&until=${at(5, 40)}&${query}`, { key: ws.apiKey })).headers['x-total-count'];
    assert.deepEqual([await total('type=bounce'), await total('status=bounced'), await total('type=send&status=bounced')], ['3', '5', '2']);
  });
});
