import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SuppressionView } from '../src/suppressions/suppression-service.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

type Entry = SuppressionView;
type Workspace = { workspaceId: string; apiKey: string };

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the suppression list: /v1/suppressions', () => {
  let t: TestApp;
  before(async () => {
    // Different budgets, so the headers show which class these routes draw on.
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '50000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
  });
  after(() => t.close());

  /** Entries written as the bounce and complaint handlers write them, at chosen times. */
  async function seed(ws: Workspace, entries: (Partial<Entry> & { email: string })[]): Promise<void> {
    for (const e of entries) {
      await t.store.suppressions.add({
        workspace_id: ws.workspaceId,
        email: e.email,
        reason: e.reason ?? 'hard_bounce',
        source_message_id: e.source_message_id ?? null,
        created_at: e.created_at ?? new Date().toISOString(),
      });
    }
  }
  const list = (ws: Workspace, query = '') => t.call('GET', `/v1/suppressions${query}`, { key: ws.apiKey });
  const sendTo = async (ws: Workspace, to: string) => (await t.call('POST', '/v1/send', { key: ws.apiKey, body: sendBody({ to: [to] }) })).json().data;

  describe('GET /v1/suppressions', () => {
    it('lists newest first, (created_at, email) descending, with X-Total-Count and the four fields', async () => {
      const ws = await t.newWorkspace();
      await seed(ws, [
        { email: 'old@example.com', reason: 'hard_bounce', source_message_id: 'msg_01aaaaaaaaaaaaaaaaaaaaaaaa', created_at: '2026-01-01T00:00:00.000Z' },
        { email: 'newest@example.com', reason: 'manual', created_at: '2026-03-01T00:00:00.000Z' },
        // Same instant: the address breaks the tie, descending.
        { email: 'alpha@example.com', reason: 'complaint', source_message_id: 'msg_01bbbbbbbbbbbbbbbbbbbbbbbb', created_at: '2026-02-01T00:00:00.000Z' },
        { email: 'omega@example.com', reason: 'hard_bounce', created_at: '2026-02-01T00:00:00.000Z' },
      ]);
      const res = await list(ws);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-total-count'], '4');
      assert.equal(res.headers['x-ratelimit-limit'], '100000', 'drawn on the "other" budget');
      assert.deepEqual(res.json(), {
        success: true,
        data: [
          { email: 'newest@example.com', reason: 'manual', source_message_id: null, created_at: '2026-03-01T00:00:00.000Z' },
          { email: 'omega@example.com', reason: 'hard_bounce', source_message_id: null, created_at: '2026-02-01T00:00:00.000Z' },
          { email: 'alpha@example.com', reason: 'complaint', source_message_id: 'msg_01bbbbbbbbbbbbbbbbbbbbbbbb', created_at: '2026-02-01T00:00:00.000Z' },
          { email: 'old@example.com', reason: 'hard_bounce', source_message_id: 'msg_01aaaaaaaaaaaaaaaaaaaaaaaa', created_at: '2026-01-01T00:00:00.000Z' },
        ],
      });
    });

    it('answers 50 by default and pages with limit and offset without overlap or gap', async () => {
      const ws = await t.newWorkspace();
      // 55 entries, one second apart, plus a run of five sharing one instant.
      const entries = Array.from({ length: 50 }, (_, i) => ({ email: `p${String(i).padStart(2, '0')}@example.com`, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() }));
      entries.push(...Array.from({ length: 5 }, (_, i) => ({ email: `tie${i}@example.com`, created_at: '2026-01-01T00:00:30.000Z' })));
      await seed(ws, entries);

      const first = await list(ws);
      assert.equal(first.headers['x-total-count'], '55');
      assert.equal(first.json().data.length, 50);
      const all: Entry[] = (await list(ws, '?limit=100')).json().data;
      assert.equal(all.length, 55);
      const order = all.map((e) => `${e.created_at} ${e.email}`);
      assert.deepEqual(order, [...order].sort().reverse());
      assert.deepEqual(first.json().data, all.slice(0, 50));

      const paged: string[] = [];
      for (let offset = 0; offset < 55; offset += 20) {
        const page = await list(ws, `?limit=20&offset=${offset}`);
        assert.equal(page.headers['x-total-count'], '55');
        paged.push(...page.json().data.map((e: Entry) => e.email));
      }
      assert.deepEqual(paged, all.map((e) => e.email));
      assert.equal(new Set(paged).size, 55);

      const beyond = await list(ws, '?offset=1000');
      assert.deepEqual([beyond.headers['x-total-count'], beyond.json()], ['55', { success: true, data: [] }]);
      assert.equal((await list(ws, '?limit=1')).json().data[0].email, 'p49@example.com');
    });

    it('filters by reason, with the total of the filter', async () => {
      const ws = await t.newWorkspace();
      await seed(ws, [
        { email: 'b1@example.com', reason: 'hard_bounce', created_at: '2026-01-01T00:00:01.000Z' },
        { email: 'b2@example.com', reason: 'hard_bounce', created_at: '2026-01-01T00:00:02.000Z' },
        { email: 'b3@example.com', reason: 'hard_bounce', created_at: '2026-01-01T00:00:03.000Z' },
        { email: 'c1@example.com', reason: 'complaint', created_at: '2026-01-01T00:00:04.000Z' },
        { email: 'm1@example.com', reason: 'manual', created_at: '2026-01-01T00:00:05.000Z' },
        { email: 'm2@example.com', reason: 'manual', created_at: '2026-01-01T00:00:06.000Z' },
      ]);
      const expected: [string, string[]][] = [
        ['hard_bounce', ['b3@example.com', 'b2@example.com', 'b1@example.com']],
        ['complaint', ['c1@example.com']],
        ['manual', ['m2@example.com', 'm1@example.com']],
      ];
      for (const [reason, emails] of expected) {
        const res = await list(ws, `?reason=${reason}`);
        assert.equal(res.headers['x-total-count'], String(emails.length), reason);
        assert.deepEqual(res.json().data.map((e: Entry) => [e.email, e.reason]), emails.map((email) => [email, reason]));
      }
      const paged = await list(ws, '?reason=hard_bounce&limit=1&offset=1');
      assert.deepEqual([paged.headers['x-total-count'], paged.json().data.map((e: Entry) => e.email)], ['3', ['b2@example.com']]);
      assert.equal((await list(ws)).headers['x-total-count'], '6');
    });

    const badQueries: [string, string][] = [
      ['limit=0', 'limit must be at least 1'],
      ['limit=101', 'limit must be at most 100'],
      ['limit=ten', 'limit must be an integer'],
      ['offset=-1', 'offset must be at least 0'],
      ['reason=soft_bounce', 'reason must be one of hard_bounce, complaint, manual'],
      ['reason=', 'reason must be one of hard_bounce, complaint, manual'],
    ];
    for (const [query, error] of badQueries) {
      it(`refuses ?${query} with 400 naming the field`, async () => {
        const res = await t.call('GET', `/v1/suppressions?${query}`);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { success: false, error });
      });
    }

    it('asks for the key like every other route', async () => {
      const res = await t.call('GET', '/v1/suppressions', { key: null });
      assert.deepEqual([res.statusCode, res.json()], [401, { success: false, error: 'Invalid or missing API key' }]);
    });
  });

  describe('GET /v1/suppressions/{email}', () => {
    it('answers the entry, whatever the case or encoding of the address in the path', async () => {
      const ws = await t.newWorkspace();
      const entry = { email: 'ada+news@example.com', reason: 'complaint', source_message_id: 'msg_01cccccccccccccccccccccccc', created_at: '2026-05-05T05:05:05.005Z' };
      await seed(ws, [entry]);
      for (const path of ['ada+news@example.com', 'Ada%2BNews%40Example.COM', 'ADA+NEWS@EXAMPLE.COM', encodeURIComponent('ada+news@example.com')]) {
        const res = await t.call('GET', `/v1/suppressions/${path}`, { key: ws.apiKey });
        assert.equal(res.statusCode, 200, path);
        assert.deepEqual(res.json(), { success: true, data: entry }, path);
      }
    });

    it('finds an address whose local part holds a slash when it is encoded', async () => {
      const ws = await t.newWorkspace();
      await seed(ws, [{ email: 'a/b@example.com' }]);
      const res = await t.call('GET', `/v1/suppressions/${encodeURIComponent('a/b@example.com')}`, { key: ws.apiKey });
      assert.deepEqual([res.statusCode, res.json().data.email], [200, 'a/b@example.com']);
    });

    it('finds and deletes the longest address there is, 254 characters, percent-encoded in the path', async () => {
      const ws = await t.newWorkspace();
      const email = `${'l'.repeat(64)}@${['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(53)].join('.')}.example`;
      assert.equal(email.length, 254);
      await seed(ws, [{ email }]);
      // Every character encoded: a path parameter three times the address's length.
      const path = [...email].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
      const found = await t.call('GET', `/v1/suppressions/${path}`, { key: ws.apiKey });
      assert.deepEqual([found.statusCode, found.json().data?.email], [200, email], found.body);
      const deleted = await t.call('DELETE', `/v1/suppressions/${path}`, { key: ws.apiKey });
      assert.deepEqual([deleted.statusCode, deleted.json().data], [200, { email, deleted: true }], deleted.body);
    });

    for (const path of ['nobody@example.com', 'not-an-address', encodeURIComponent('ada+news@example.com')]) {
      it(`answers 404 Suppression not found for ${path}, not listed`, async () => {
        const res = await t.call('GET', `/v1/suppressions/${path}`);
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), { success: false, error: 'Suppression not found' });
      });
    }
  });

  describe('DELETE /v1/suppressions/{email}', () => {
    it('takes the address off the list: a send to it is sent again', async () => {
      const ws = await t.newWorkspace();
      await seed(ws, [{ email: 'back@example.com', reason: 'hard_bounce' }, { email: 'stays@example.com' }]);
      assert.equal((await sendTo(ws, 'back@example.com')).status, 'suppressed', 'listed before the delete');

      const res = await t.call('DELETE', '/v1/suppressions/Back%40Example.com', { key: ws.apiKey });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { success: true, data: { email: 'back@example.com', deleted: true } });

      assert.equal((await sendTo(ws, 'back@example.com')).status, 'sent');
      assert.equal((await sendTo(ws, 'BACK@example.com')).status, 'sent');
      assert.equal((await sendTo(ws, 'stays@example.com')).status, 'suppressed', 'only that address was removed');
      const listed = await list(ws);
      assert.deepEqual([listed.headers['x-total-count'], listed.json().data.map((e: Entry) => e.email)], ['1', ['stays@example.com']]);
    });

    it('answers 404 Suppression not found when the address is not listed, and for a second delete', async () => {
      const ws = await t.newWorkspace();
      await seed(ws, [{ email: 'twice@example.com' }]);
      assert.equal((await t.call('DELETE', '/v1/suppressions/twice@example.com', { key: ws.apiKey })).statusCode, 200);
      for (const path of ['twice@example.com', 'never@example.com']) {
        const res = await t.call('DELETE', `/v1/suppressions/${path}`, { key: ws.apiKey });
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), { success: false, error: 'Suppression not found' });
      }
      const gone = await t.call('GET', '/v1/suppressions/twice@example.com', { key: ws.apiKey });
      assert.deepEqual([gone.statusCode, gone.json()], [404, { success: false, error: 'Suppression not found' }]);
    });
  });

  describe('POST /v1/suppressions', () => {
    it('adds an address by hand, lower-cased, as manual: 201, and a send to it is suppressed', async () => {
      const ws = await t.newWorkspace();
      assert.equal((await sendTo(ws, 'grace@example.com')).status, 'sent', 'not listed before');
      const before = Date.now();
      const res = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: '  Grace@Example.COM ' } });
      assert.equal(res.statusCode, 201);
      const { data } = res.json();
      assert.deepEqual({ ...data, created_at: '' }, { email: 'grace@example.com', reason: 'manual', source_message_id: null, created_at: '' });
      assert.match(data.created_at, ISO);
      assert.ok(Date.parse(data.created_at) >= before - 5);

      const send = await t.call('POST', '/v1/send', { key: ws.apiKey, body: sendBody({ to: ['GRACE@example.com'] }) });
      assert.equal(send.json().data.status, 'suppressed');
      const log = (await t.call('GET', `/v1/send/logs?status=suppressed`, { key: ws.apiKey })).json().data;
      assert.deepEqual(log.map((e: { message_id: string; error: string }) => [e.message_id, e.error]), [
        [send.json().data.message_id, 'Recipient is on the suppression list (manual)'],
      ]);
      assert.deepEqual((await t.call('GET', '/v1/suppressions/grace@example.com', { key: ws.apiKey })).json(), { success: true, data });
    });

    it('accepts reason manual given explicitly', async () => {
      const ws = await t.newWorkspace();
      const res = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: 'explicit@example.com', reason: 'manual' } });
      assert.deepEqual([res.statusCode, res.json().data.reason], [201, 'manual']);
    });

    it('is idempotent: an address already listed answers 200 with its entry unchanged', async () => {
      const ws = await t.newWorkspace();
      const bounced = { email: 'bounced@example.com', reason: 'hard_bounce', source_message_id: 'msg_01dddddddddddddddddddddddd', created_at: '2026-04-04T04:04:04.004Z' };
      await seed(ws, [bounced]);
      const again = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: 'Bounced@example.com' } });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), { success: true, data: bounced });

      const first = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: 'manual@example.com' } });
      const second = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: 'MANUAL@example.com', reason: 'manual' } });
      assert.deepEqual([first.statusCode, second.statusCode], [201, 200]);
      assert.deepEqual(second.json(), first.json());

      const listed = await list(ws);
      assert.equal(listed.headers['x-total-count'], '2');
      assert.deepEqual((await t.call('GET', '/v1/suppressions/bounced@example.com', { key: ws.apiKey })).json().data, bounced);
    });

    it('keeps one entry when the same address is added many times at once', async () => {
      const ws = await t.newWorkspace();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.call('POST', '/v1/suppressions', { key: ws.apiKey, body: { email: 'race@example.com' } })),
      );
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 201]);
      assert.equal(new Set(answers.map((r) => r.body)).size, 1, 'every answer shows the one entry');
      assert.equal((await list(ws)).headers['x-total-count'], '1');
    });

    const badBodies: [string, unknown, string][] = [
      ['no email', {}, 'email is required'],
      ['a non-string email', { email: 3 }, 'email must be a string'],
      ['an empty email', { email: '' }, 'email must be a valid email address (got "")'],
      ['an address without @', { email: 'not-an-address' }, 'email must be a valid email address (got "not-an-address")'],
      ['an address without a dot in its domain', { email: 'a@localhost' }, 'email must be a valid email address (got "a@localhost")'],
      ['a mailbox with a name', { email: 'Ada <ada@example.com>' }, 'email must be a valid email address (got "Ada <ada@example.com>")'],
      ['two addresses', { email: 'a@example.com, b@example.com' }, 'email must be a valid email address (got "a@example.com, b@example.com")'],
      ['a line break', { email: 'a@example.com\r\nBcc: b@example.com' }, 'email must not contain line breaks or control characters'],
      ['a local part over 64 characters', { email: `${'a'.repeat(65)}@example.com` }, `email must be a valid email address (got "${'a'.repeat(65)}@example.com")`],
      ['reason hard_bounce', { email: 'a@example.com', reason: 'hard_bounce' }, 'reason must be manual: hard_bounce and complaint entries are added by Mailroom itself (got "hard_bounce")'],
      ['reason complaint', { email: 'a@example.com', reason: 'complaint' }, 'reason must be manual: hard_bounce and complaint entries are added by Mailroom itself (got "complaint")'],
      ['an unknown reason', { email: 'a@example.com', reason: 'spam' }, 'reason must be manual: hard_bounce and complaint entries are added by Mailroom itself (got "spam")'],
      ['a non-string reason', { email: 'a@example.com', reason: 1 }, 'reason must be a string'],
      ['an unknown field', { email: 'a@example.com', source_message_id: 'msg_x' }, 'source_message_id is not a supported field'],
    ];
    for (const [name, body, error] of badBodies) {
      it(`refuses ${name} with 400 and writes nothing`, async () => {
        const ws = await t.newWorkspace();
        const res = await t.call('POST', '/v1/suppressions', { key: ws.apiKey, body });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { success: false, error });
        assert.equal((await list(ws)).headers['x-total-count'], '0');
      });
    }
  });

  describe('per workspace', () => {
    let a: Workspace;
    let b: Workspace;
    before(async () => {
      a = await t.newWorkspace('A');
      b = await t.newWorkspace('B');
      await seed(a, [{ email: 'a-only@example.com', reason: 'complaint', source_message_id: 'msg_01eeeeeeeeeeeeeeeeeeeeeeee', created_at: '2026-06-06T06:06:06.006Z' }]);
    });

    it('shows B none of A\'s entries', async () => {
      const res = await list(b);
      assert.deepEqual([res.headers['x-total-count'], res.json()], ['0', { success: true, data: [] }]);
      assert.equal((await list(b, '?reason=complaint')).headers['x-total-count'], '0');
      assert.equal((await list(a)).headers['x-total-count'], '1');
    });

    for (const method of ['GET', 'DELETE']) {
      it(`${method} /v1/suppressions/{email} answers B 404 for A's entry and leaves it in place`, async () => {
        const res = await t.call(method, '/v1/suppressions/a-only@example.com', { key: b.apiKey });
        assert.deepEqual([res.statusCode, res.json()], [404, { success: false, error: 'Suppression not found' }]);
        const kept = await t.call('GET', '/v1/suppressions/a-only@example.com', { key: a.apiKey });
        assert.deepEqual([kept.statusCode, kept.json().data.reason], [200, 'complaint']);
      });
    }

    it('suppresses the address for A only, and lets B list it for itself without touching A\'s entry', async () => {
      assert.equal((await sendTo(b, 'a-only@example.com')).status, 'sent');
      assert.equal((await sendTo(a, 'a-only@example.com')).status, 'suppressed');
      const added = await t.call('POST', '/v1/suppressions', { key: b.apiKey, body: { email: 'a-only@example.com' } });
      assert.equal(added.statusCode, 201, 'new in B, though listed in A');
      assert.equal(added.json().data.reason, 'manual');
      assert.equal((await t.call('DELETE', '/v1/suppressions/a-only@example.com', { key: b.apiKey })).statusCode, 200);
      const kept = await t.call('GET', '/v1/suppressions/a-only@example.com', { key: a.apiKey });
      assert.deepEqual(kept.json().data, { email: 'a-only@example.com', reason: 'complaint', source_message_id: 'msg_01eeeeeeeeeeeeeeeeeeeeeeee', created_at: '2026-06-06T06:06:06.006Z' });
    });
  });
});
