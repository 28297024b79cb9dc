import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestFingerprint } from '../src/sending/idempotency/idempotency-service.js';
import { createTestApp, sendBody, writtenRows, type TestApp } from './helpers/test-app.js';
import { TEST_STORE } from './helpers/test-store.js';

const DIFFERENT = 'Idempotency-Key was already used with a different request';
const IN_FLIGHT = 'A request with this Idempotency-Key is still being processed; try again shortly';

/** POST /v1/send on `app` (default t's) with an Idempotency-Key. */
function send(t: TestApp, key: string | undefined, body: unknown, options: { apiKey?: string; app?: TestApp } = {}) {
  return (options.app ?? t).app.inject({
    method: 'POST',
    url: '/v1/send',
    headers: { 'x-api-key': options.apiKey ?? t.apiKey, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: body as object,
  });
}

async function messageCount(t: TestApp): Promise<number> {
  return Number((await writtenRows(t.db)).messages);
}

describe(`Idempotency-Key on POST /v1/send (${TEST_STORE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' });
  });
  after(() => t.close());

  it('answers the first response again, headers included, with Idempotent-Replayed, and sends nothing more', async () => {
    const first = await send(t, 'replay-1', sendBody({ subject: 'Once' }));
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const rows = await writtenRows(t.db);

    // The same body with its fields in another order is the same request.
    const { subject, ...rest } = sendBody({ subject: 'Once' });
    const again = await send(t, 'replay-1', { subject, ...rest });
    assert.equal(again.statusCode, 200);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    // A replay is a request: it is counted, and its rate-limit headers are its own.
    assert.equal(Number(again.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1);
    assert.deepEqual(await writtenRows(t.db), rows);
  });

  it('refuses the same key with a different body, writing nothing', async () => {
    assert.equal((await send(t, 'different-1', sendBody({ subject: 'A' }))).statusCode, 200);
    const rows = await writtenRows(t.db);
    const res = await send(t, 'different-1', sendBody({ subject: 'B' }));
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { success: false, error: DIFFERENT });
    assert.deepEqual(await writtenRows(t.db), rows);
  });

  it('answers 400 for an empty key or one over 256 characters, and accepts 256', async () => {
    const rows = await writtenRows(t.db);
    for (const [key, length] of [['', 0], ['k'.repeat(257), 257]] as const) {
      const res = await send(t, key, sendBody());
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { success: false, error: `Idempotency-Key must be 1 to 256 characters (got ${length})` });
    }
    assert.deepEqual(await writtenRows(t.db), rows);
    assert.equal((await send(t, 'k'.repeat(256), sendBody())).statusCode, 200);
  });

  it('keeps keys per workspace', async () => {
    const other = await t.newWorkspace();
    const before = await messageCount(t);
    assert.equal((await send(t, 'shared-key', sendBody())).headers['idempotent-replayed'], undefined);
    const theirs = await send(t, 'shared-key', sendBody({ subject: 'Theirs' }), { apiKey: other.apiKey });
    assert.equal(theirs.statusCode, 200);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.equal(await messageCount(t), before + 2);
  });

  it('keeps a 4xx from the send rules, but not a body the schema refused', async () => {
    const tooMany = sendBody({ to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) });
    const first = await send(t, 'rules-400', tooMany);
    assert.equal(first.statusCode, 400);
    const again = await send(t, 'rules-400', tooMany);
    assert.equal(again.statusCode, 400);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');

    const refused = await send(t, 'schema-400', sendBody({ bogus: 1 }));
    assert.equal(refused.statusCode, 400);
    const valid = await send(t, 'schema-400', sendBody());
    assert.equal(valid.statusCode, 200);
    assert.equal(valid.headers['idempotent-replayed'], undefined);
  });

  it('sends once when 10 identical requests race: the others replay or answer 409 in flight', async () => {
    const before = await messageCount(t);
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(t, 'race-1', sendBody({ subject: 'Race' }))));
    assert.equal(await messageCount(t), before + 1);
    const fresh = answers.filter((a) => a.statusCode === 200 && a.headers['idempotent-replayed'] === undefined);
    assert.equal(fresh.length, 1);
    for (const a of answers) {
      if (a === fresh[0]) continue;
      if (a.statusCode === 409) {
        assert.deepEqual(a.json(), { success: false, error: IN_FLIGHT });
        assert.equal(a.headers['retry-after'], '1');
      } else {
        assert.equal(a.headers['idempotent-replayed'], 'true');
        assert.equal(a.body, fresh[0]!.body);
      }
    }
  });

  it('forgets a key after 24 hours, and purges expired keys', async () => {
    assert.equal((await send(t, 'expiring', sendBody({ subject: 'Day 1' }))).statusCode, 200);
    const past = new Date(Date.now() - 1000).toISOString();
    await t.db.updateTable('idempotency_keys').set({ created_at: past, expires_at: past }).where('key', '=', 'expiring').execute();
    const before = await messageCount(t);
    const next = await send(t, 'expiring', sendBody({ subject: 'Day 2' }));
    assert.equal(next.statusCode, 200);
    assert.equal(next.headers['idempotent-replayed'], undefined);
    assert.equal(await messageCount(t), before + 1);

    await t.db.updateTable('idempotency_keys').set({ expires_at: past }).where('key', '=', 'expiring').execute();
    assert.equal(await t.store.idempotencyKeys.purgeExpired(new Date().toISOString()), 1);
    assert.equal(await t.store.idempotencyKeys.find(t.workspaceId, 'expiring'), undefined);
  });

  it('answers 409 while a claim is in flight, and takes over one left by a crash after 5 minutes', async () => {
    const body = sendBody({ subject: 'Crashed' });
    const now = new Date();
    await t.db
      .insertInto('idempotency_keys')
      .values({
        workspace_id: t.workspaceId,
        key: 'crashed',
        fingerprint: requestFingerprint('POST', '/v1/send', body),
        state: 'in_flight',
        lease: 'gone',
        claimed_at: now.toISOString(),
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      })
      .execute();
    const busy = await send(t, 'crashed', body);
    assert.equal(busy.statusCode, 409);
    assert.equal(busy.json().error, IN_FLIGHT);

    await t.db.updateTable('idempotency_keys').set({ claimed_at: new Date(now.getTime() - 6 * 60_000).toISOString() }).where('key', '=', 'crashed').execute();
    const taken = await send(t, 'crashed', body);
    assert.equal(taken.statusCode, 200);
    assert.equal(taken.headers['idempotent-replayed'], undefined);
    assert.equal((await send(t, 'crashed', body)).headers['idempotent-replayed'], 'true');
  });

  it('releases the key when the request fails with a 5xx, so a retry can run', async () => {
    const outcome = await t.services.idempotency.begin(t.workspaceId, 'failing', 'f'.repeat(64));
    assert.equal(outcome.kind, 'claimed');
    if (outcome.kind !== 'claimed') return;
    await t.services.idempotency.finish(t.workspaceId, 'failing', outcome.lease, { status: 500, headers: {}, body: '{}' });
    assert.equal(await t.store.idempotencyKeys.find(t.workspaceId, 'failing'), undefined);
    assert.equal((await t.services.idempotency.begin(t.workspaceId, 'failing', 'f'.repeat(64))).kind, 'claimed');
  });

  it('sends once when two apps sharing the store race the same key (two processes)', async () => {
    const second = await createTestApp({ RATE_LIMIT_SEND_PER_MIN: '100000' }, { shareStoreWith: t });
    try {
      const before = await messageCount(t);
      const body = sendBody({ subject: 'Two processes' });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(t, 'two-apps', body, { app: i % 2 === 0 ? t : second })));
      assert.equal(await messageCount(t), before + 1);
      assert.equal(answers.filter((a) => a.statusCode === 200 && a.headers['idempotent-replayed'] === undefined).length, 1);
      assert.ok(answers.every((a) => a.statusCode === 200 || a.statusCode === 409));
    } finally {
      await second.close();
    }
  });
});
