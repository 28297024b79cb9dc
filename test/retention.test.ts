/**
 * CONTENT_RETENTION_DAYS and LOG_RETENTION_DAYS (src/retention/): real sends,
 * delivered by the worker through the sandbox provider with their webhooks
 * posted to a real receiver, then pruned by the pruner `serve` runs, with its
 * clock set 31 and 91 days ahead. The statistics stay as they were; the
 * detail says "content expired"; a message still to be delivered is never
 * touched; and while one process holds the store's lease, another prunes
 * nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { createRetentionPruner } from '../src/retention/index.js';
import type { Store } from '../src/db/store.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DAY_MS = 86_400_000;
const sim = (local: string) => `${local}@${SIMULATOR_DOMAIN}`;
const silent = pino({ level: 'silent' });

describe('retention', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let delivered: string;
  let scheduled: string;
  let statsBefore: unknown;
  const pdf = randomBytes(20_000);

  before(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp(
      { RATE_LIMIT_OTHER_PER_MIN: '100000', WORKER_POLL_MS: '20', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '20' },
      { worker: true, webhooks: true },
    );
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url } })).statusCode, 201);
    const sent = await t.call('POST', '/v1/send', {
      body: sendBody({
        to: [sim('delivered'), sim('bounce')],
        html: '<p>Your invoice</p>',
        tags: [{ name: 'kind', value: 'invoice' }],
        attachments: [{ filename: 'invoice.pdf', content: pdf.toString('base64') }],
      }),
    });
    assert.equal(sent.statusCode, 200, sent.body);
    delivered = sent.json().data.message_id;
    // Held for 20 days: its job stays pending, so no age makes it prunable.
    const later = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: new Date(Date.now() + 20 * DAY_MS).toISOString(), tags: [{ name: 'kind', value: 'reminder' }] }) });
    assert.equal(later.statusCode, 200, later.body);
    scheduled = later.json().data.message_id;
    await waitFor(async () => (await t.store.messages.findJobByMessage(delivered))?.state === 'done', 'the message delivered');
    await waitFor(async () => {
      const deliveries = (await t.call('GET', `/v1/messages/${delivered}`)).json().data.webhook_deliveries as { status: string }[];
      return deliveries.length === 2 && deliveries.every((d) => d.status === 'delivered');
    }, 'its webhooks posted');
    // A report received long ago (its id is a digest of its bytes).
    await t.db.insertInto('inbound_reports').values({ id: 'a'.repeat(64), message_id: null, summary: '{}', verdict: null, received_at: new Date(Date.now() - 50 * DAY_MS).toISOString() }).execute();
    statsBefore = (await t.call('GET', '/v1/send/stats')).json().data;
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  const pruner = (store: Store, daysAhead: number, batchSize = 1) =>
    createRetentionPruner({ store, settings: t.config.retention, logger: silent, now: () => Date.now() + daysAhead * DAY_MS, batchSize, pauseMs: 0 });
  const rowsOf = async (table: 'messages' | 'log_entries' | 'log_entry_tags' | 'message_events' | 'delivery_attempts' | 'webhook_deliveries' | 'webhook_attempts' | 'inbound_reports') =>
    Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('keeps everything younger than CONTENT_RETENTION_DAYS (default 30)', async () => {
    assert.deepEqual(t.config.retention, { contentDays: 30, logDays: 90 });
    const round = await pruner(t.store, 29).runOnce();
    assert.deepEqual(round.rows, {});
    assert.equal((await t.call('GET', `/v1/messages/${delivered}`)).json().data.content_expired_at, null);
  });

  it('drops bodies, attachment bytes, the MIME, opens and clicks past CONTENT_RETENTION_DAYS; the detail says the content expired', async () => {
    // An open of the delivered message, and the first open it made (docs/tracking.md#what-is-recorded).
    const [entry] = await t.store.logs.listSendEntries([delivered]);
    await t.db.insertInto('message_events').values({ id: 'evt_open', workspace_id: entry!.workspace_id, message_id: delivered, type: 'opened', recipient: entry!.recipient, payload: '{}', created_at: new Date().toISOString() }).execute();
    await t.db.insertInto('engagement_firsts').values({ message_id: delivered, recipient_index: 0, kind: 'open', at: new Date().toISOString() }).execute();
    const round = await pruner(t.store, 31).runOnce();
    assert.equal(round.leased, true);
    // One message (the scheduled one is still to be delivered), in steps of one.
    assert.deepEqual(round.rows, { message_attachments: 1, message_mime: 1, sandbox_messages: 1, engagement_events: 1, engagement_firsts: 1, messages_content: 1 });
    const kept = await t.db.selectFrom('message_events').select('type').where('message_id', '=', delivered).execute();
    assert.ok(kept.length > 0 && kept.every((e) => e.type !== 'opened'), 'its delivery events stay');

    const detail = (await t.call('GET', `/v1/messages/${delivered}`)).json().data;
    assert.match(detail.content_expired_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(detail.size_bytes, null);
    assert.deepEqual(detail.attachments.map((a: { filename: string; size: number }) => [a.filename, a.size]), [['invoice.pdf', pdf.length]]);
    assert.deepEqual(detail.recipients.map((r: { to: string; status: string }) => [r.to, r.status]), [[sim('delivered'), 'delivered'], [sim('bounce'), 'bounced']]);
    assert.equal(detail.webhook_deliveries.length, 2);

    const content = await t.call('GET', `/v1/messages/${delivered}/content`);
    assert.equal(content.statusCode, 200);
    assert.deepEqual(content.json().data, {
      html: null, text: null, raw: null, content_expired_at: detail.content_expired_at,
      raw_unavailable_reason: `Content expired on ${detail.content_expired_at.slice(0, 10)}: bodies, attachments and the message as handed over are kept for CONTENT_RETENTION_DAYS days`,
    });
    const bytes = await t.db.selectFrom('message_attachments').select('content').where('message_id', '=', delivered).executeTakeFirstOrThrow();
    assert.equal(bytes.content.length, 0);

    const held = (await t.call('GET', `/v1/messages/${scheduled}/content`)).json().data;
    assert.deepEqual([held.text, held.content_expired_at], ['Hello there', null]);
    assert.deepEqual((await t.call('GET', '/v1/send/stats')).json().data, statsBefore);
    // Nothing left to do: a second round changes nothing.
    assert.deepEqual((await pruner(t.store, 31).runOnce()).rows, {});
  });

  it('does nothing while another process holds the lease, and takes over one that has expired', async () => {
    const other = await createTestApp({}, { shareStoreWith: t });
    try {
      const at = Date.now() + 91 * DAY_MS;
      const iso = (ms: number) => new Date(ms).toISOString();
      assert.equal(await other.store.retention.takeLease('retention', 'other-process', iso(at), iso(at + 60_000)), true);
      const messages = await rowsOf('messages');
      assert.deepEqual(await pruner(t.store, 91).runOnce(), { leased: false, rows: {}, steps: 0 });
      assert.equal(await rowsOf('messages'), messages);
      // Its holder stopped renewing it a second ago (by the pruner's clock).
      assert.equal(await other.store.retention.takeLease('retention', 'other-process', iso(at - 120_000), iso(at - 1_000)), true);
      assert.equal(await other.store.retention.takeLease('retention', 'a-third-process', iso(at - 60_000), iso(at)), false);
    } finally {
      await other.close();
    }
  });

  it('deletes messages past LOG_RETENTION_DAYS with their log, events, attempts and webhook deliveries, and keeps the statistics', async () => {
    const tagRows = await rowsOf('log_entry_tags');
    const round = await pruner(t.store, 91).runOnce();
    assert.equal(round.leased, true);
    assert.deepEqual(round.rows, {
      // A send entry per recipient, each with its tag row; two events (delivered, bounced), two attempts.
      log_entry_tags: 2, log_entries: 2, message_events: 2, delivery_attempts: 2, sandbox_messages: 0, engagement_firsts: 0, messages: 1, webhook_deliveries: 2, inbound_reports: 1,
    });
    assert.equal(await rowsOf('log_entry_tags'), tagRows - 2);
    assert.deepEqual([await rowsOf('webhook_attempts'), await rowsOf('inbound_reports')], [0, 0]);
    assert.equal((await t.call('GET', `/v1/messages/${delivered}`)).statusCode, 404);
    const logs = (await t.call('GET', '/v1/send/logs')).json().data as { message_id: string }[];
    assert.deepEqual([...new Set(logs.map((entry) => entry.message_id))], [scheduled]);
    assert.deepEqual((await t.call('GET', '/v1/send/stats')).json().data, statsBefore);
    // The message still to be delivered is all there.
    const held = (await t.call('GET', `/v1/messages/${scheduled}`)).json().data;
    assert.deepEqual([held.content_expired_at, held.tags], [null, { kind: 'reminder' }]);
  });

  it('splits the work between processes without doing any twice', async () => {
    const other = await createTestApp({}, { shareStoreWith: t });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('delivered')] }) })).json().data.message_id);
      await waitFor(async () => {
        const jobs = await t.db.selectFrom('delivery_jobs').select('state').where('message_id', 'in', ids).execute();
        return jobs.every((job) => job.state === 'done');
      }, 'the twelve delivered');
      const rounds = await Promise.all([pruner(t.store, 91, 2).runOnce(), pruner(other.store, 91, 2).runOnce()]);
      assert.equal(rounds.reduce((sum, round) => sum + (round.rows.messages ?? 0), 0), 12);
      assert.equal(await t.db.selectFrom('messages').select('id').where('id', 'in', ids).executeTakeFirst(), undefined);
    } finally {
      await other.close();
    }
  });

  it('passes a message still to be delivered, goes on in the same round, and expires it once its job is done', async () => {
    const contentOf = async (id: string) => (await t.call('GET', `/v1/messages/${id}/content`)).json().data as { text: string | null; content_expired_at: string | null };
    const held = await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: new Date(Date.now() + 20 * DAY_MS).toISOString() }) });
    assert.equal(held.statusCode, 200, held.body);
    const heldId = held.json().data.message_id as string;
    const sent = await t.call('POST', '/v1/send', { body: sendBody({ to: [sim('delivered')] }) });
    const sentId = sent.json().data.message_id as string;
    await waitFor(async () => (await t.store.messages.findJobByMessage(sentId))?.state === 'done', 'the second one delivered');

    // In steps of one: the first step passes only the held message, and the round does not stop there.
    const round = await pruner(t.store, 31).runOnce();
    assert.deepEqual(round.rows, { message_attachments: 0, message_mime: 1, sandbox_messages: 1, engagement_events: 0, engagement_firsts: 0, messages_content: 1 });
    assert.deepEqual([(await contentOf(heldId)).text, (await contentOf(sentId)).text], ['Hello there', null]);
    assert.deepEqual(await t.db.selectFrom('retention_held').select('message_id').orderBy('message_id').execute(), [scheduled, heldId].sort().map((message_id) => ({ message_id })));

    assert.equal((await t.call('POST', `/v1/messages/${heldId}/cancel`)).statusCode, 200);
    const after = await pruner(t.store, 31).runOnce();
    assert.deepEqual(after.rows, { message_attachments: 0, message_mime: 0, sandbox_messages: 0, engagement_events: 0, engagement_firsts: 0, messages_content: 1 });
    assert.match((await contentOf(heldId)).content_expired_at ?? '', /^\d{4}-/);
    assert.deepEqual(await t.db.selectFrom('retention_held').select('message_id').execute(), [{ message_id: scheduled }], 'the one still scheduled stays held');
    assert.equal((await contentOf(scheduled)).text, 'Hello there');
  });
});

describe('retention settings', () => {
  it('reads CONTENT_RETENTION_DAYS and LOG_RETENTION_DAYS, 0 meaning for ever, and names a bad one', () => {
    assert.deepEqual(loadConfig({ CONTENT_RETENTION_DAYS: '7', LOG_RETENTION_DAYS: '0' }).retention, { contentDays: 7, logDays: 0 });
    assert.throws(() => loadConfig({ LOG_RETENTION_DAYS: 'ninety' }), { message: 'Invalid configuration: LOG_RETENTION_DAYS must be an integer from 0 to 36500 (got "ninety")' });
    assert.throws(() => loadConfig({ CONTENT_RETENTION_DAYS: '-1' }), { message: 'Invalid configuration: CONTENT_RETENTION_DAYS must be an integer from 0 to 36500 (got "-1")' });
  });

});
