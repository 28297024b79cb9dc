import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { startInboundReceiver } from '../src/inbound/inbound-receiver.js';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { createBacklogRepository } from '../src/observability/backlog-repository.js';
import { storeKindOfDb } from '../src/db/database.js';
import { loadConfig } from '../src/config.js';
import { createMetrics } from '../src/observability/metrics.js';
import { BREAKER_RULE } from '../src/delivery/index.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { freshStore } from './helpers/test-store.js';
import { freePort } from './helpers/free-port.js';
import { parseMetrics, valueOf, type Sample } from './helpers/metrics-text.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';
import { startDnsServer } from './helpers/dns-server.js';
import { addVerifiedDomain } from './helpers/verified-domain.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const LIMITS = { RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000', METRICS_TOKEN: TOKEN };
const silent = { info() {}, warn() {}, error() {} };

async function scrape(t: TestApp): Promise<Sample[]> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseMetrics(res.body);
}

/** How much each named sample moved between two scrapes. */
const moved = (before: Sample[], later: Sample[], name: string, labels: Record<string, string>) => valueOf(later, name, labels) - valueOf(before, name, labels);

describe('GET /metrics', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('counts sends by way in, deliveries by provider and outcome, webhook posts by outcome, inbound reports by kind, and times requests by route pattern', async () => {
    // The first post fails (a retry), every other one is taken.
    const receiver = await startWebhookReceiver((_hook, index) => (index === 0 ? 500 : 200));
    cleanups.push(() => receiver.close());
    const t = await createTestApp({ ...LIMITS, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' }, { worker: true, webhooks: true });
    cleanups.push(() => t.close());
    const inbound = await startInboundReceiver(
      { port: await freePort(), host: '127.0.0.1', complaintAddress: 'complaints@mailroom.test' },
      createInboundReportService(t.store, t.returnPaths, t.services.metrics).recordReceived,
      silent,
      t.returnPaths,
    );
    cleanups.push(() => inbound.close());
    assert.equal((await t.call('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['delivered'] } })).statusCode, 201);
    const before = await scrape(t);

    const single = await t.call('POST', '/v1/send', { body: sendBody({ to: ['grace@example.net'] }) });
    assert.equal(single.statusCode, 200);
    assert.equal((await t.call('POST', '/v1/send/batch', { body: [sendBody({ to: ['a@example.com'] }), sendBody({ to: ['b@example.com'] })] })).statusCode, 200);
    const resend = await t.app.inject({
      method: 'POST',
      url: '/compat/resend/emails',
      headers: { authorization: `Bearer ${t.apiKey}` },
      payload: { from: 'hello@sandbox.mailroom.test', to: 'c@example.com', subject: 'Hi', text: 'Hi' },
    });
    assert.equal(resend.statusCode, 200, resend.body);
    // A raw URL with an id: the histogram must name the route's pattern instead.
    assert.equal((await t.call('GET', '/v1/messages/msg_01jzzzzzzzzzzzzzzzzzzzzzzz')).statusCode, 404);

    const afterSends = await waitFor(async () => {
      const now = await scrape(t);
      return moved(before, now, 'mailroom_delivery_outcomes_total', { provider: 'sandbox', outcome: 'delivered' }) === 4 &&
        moved(before, now, 'mailroom_webhook_deliveries_total', { outcome: 'delivered' }) === 4
        ? now
        : null;
    }, 'four deliveries and their four webhook posts');
    assert.equal(moved(before, afterSends, 'mailroom_sends_total', { way: 'http', status: 'sent' }), 1);
    assert.equal(moved(before, afterSends, 'mailroom_sends_total', { way: 'batch', status: 'sent' }), 2);
    assert.equal(moved(before, afterSends, 'mailroom_sends_total', { way: 'resend', status: 'sent' }), 1);
    assert.equal(moved(before, afterSends, 'mailroom_webhook_deliveries_total', { outcome: 'retrying' }), 1);
    assert.equal(moved(before, afterSends, 'mailroom_webhook_deliveries_total', { outcome: 'failed' }), 0);
    assert.equal(moved(before, afterSends, 'mailroom_http_request_duration_seconds_count', { method: 'POST', route: '/v1/send', status_code: '200' }), 1);
    assert.equal(moved(before, afterSends, 'mailroom_http_request_duration_seconds_count', { method: 'POST', route: '/v1/send/batch', status_code: '200' }), 1);
    assert.equal(moved(before, afterSends, 'mailroom_http_request_duration_seconds_count', { method: 'GET', route: '/v1/messages/:id', status_code: '404' }), 1);
    assert.ok(!afterSends.some((s) => Object.values(s.labels).some((v) => v.includes('msg_01jz'))), 'no raw URL in any label');

    // A hard bounce for the first send, through the real receiver over SMTP.
    const id = single.json().data.message_id as string;
    const verp = t.returnPaths.sign(id, 0, 'mr-bounces.sandbox.mailroom.test');
    const report = readFileSync(join(import.meta.dirname, 'fixtures', 'inbound', 'postfix-bounce-verp.eml'), 'utf8').replaceAll('msg_01abc', id);
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
    await smtp.sendMail({ envelope: { from: '', to: [verp] }, raw: report });
    await smtp.sendMail({ envelope: { from: '', to: [verp] }, raw: report });
    smtp.close();
    const afterReports = await scrape(t);
    assert.equal(moved(afterSends, afterReports, 'mailroom_inbound_reports_total', { kind: 'hard_bounce', outcome: 'recorded' }), 1);
    assert.equal(moved(afterSends, afterReports, 'mailroom_inbound_reports_total', { kind: 'none', outcome: 'duplicate' }), 1);

    // The process and the store's pool.
    assert.ok(afterReports.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds'));
    const store = storeKindOfDb(t.db);
    assert.ok(valueOf(afterReports, 'mailroom_store_connections', { store, state: 'total' }) >= 1);
    assert.equal(valueOf(afterReports, 'mailroom_store_up'), 1);
  });

  it('reads the queue depth, the oldest due job\'s age and the webhook backlog from the store at each scrape', async () => {
    const t = await createTestApp(LIMITS);
    cleanups.push(() => t.close());
    assert.equal(valueOf(await scrape(t), 'mailroom_delivery_queue_jobs'), 0);
    assert.equal(valueOf(await scrape(t), 'mailroom_delivery_queue_oldest_due_age_seconds'), 0);

    // No worker here: the jobs wait. One came due an hour ago, one is scheduled for tomorrow.
    await t.call('POST', '/v1/send', { body: sendBody() });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    await t.call('POST', '/v1/send', { body: sendBody({ scheduled_at: tomorrow }) });
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await t.db.updateTable('delivery_jobs').set({ available_at: anHourAgo }).where('available_at', '<', tomorrow).execute();
    const samples = await scrape(t);
    assert.equal(valueOf(samples, 'mailroom_delivery_queue_jobs'), 2);
    const age = valueOf(samples, 'mailroom_delivery_queue_oldest_due_age_seconds');
    assert.ok(age >= 3600 && age < 3660, `age ${age}`);
    assert.equal(valueOf(samples, 'mailroom_webhook_backlog_deliveries'), 0);
  });

  it('reads mailroom_upstream_up from the breaker\'s state in the store: 0 while an upstream is held down, 1 otherwise', async () => {
    const t = await createTestApp(LIMITS);
    cleanups.push(() => t.close());
    const upstreamsOf = (samples: Sample[]) =>
      Object.fromEntries(samples.filter((s) => s.name === 'mailroom_upstream_up').map((s) => [s.labels.upstream, s.value]));
    assert.deepEqual(upstreamsOf(await scrape(t)), { 'server:sandbox': 1 }, 'MAILROOM_PROVIDER\'s upstream, never failed');
    const add = async (name: string) =>
      (await t.call('POST', '/v1/upstreams', { body: { name, type: 'smtp', url: 'smtp://mailroom:password@93.184.216.34:587' } })).json().data.id as string;
    const [primary, backup] = [await add('primary'), await add('backup')];
    assert.deepEqual(upstreamsOf(await scrape(t)), { 'server:sandbox': 1, [primary]: 1, [backup]: 1 });
    // As the breaker records them (delivery/upstream-breaker.ts): five failures of its own within the window.
    const now = Date.now();
    for (let i = 0; i < BREAKER_RULE.failures; i++) await t.store.upstreamHealth.recordFailure(primary, '421 4.3.2 Service not available', now + i, BREAKER_RULE, false);
    await t.store.upstreamHealth.recordFailure(backup, 'connect ECONNREFUSED', now, BREAKER_RULE, false);
    assert.deepEqual(upstreamsOf(await scrape(t)), { 'server:sandbox': 1, [primary]: 0, [backup]: 1 }, 'one failure degrades, it does not take an upstream down');
    await t.store.upstreamHealth.recordSuccess(primary, now + 40_000);
    assert.deepEqual(upstreamsOf(await scrape(t)), { 'server:sandbox': 1, [primary]: 1, [backup]: 1 });
    assert.equal((await t.call('DELETE', `/v1/upstreams/${backup}`)).statusCode, 200);
    assert.deepEqual(upstreamsOf(await scrape(t)), { 'server:sandbox': 1, [primary]: 1 }, 'a deleted upstream leaves the scrape');
  });

  it('leaves the store-wide gauges out of a scrape the store did not answer, with mailroom_store_up 0', async () => {
    const store = await freshStore();
    cleanups.push(() => store.drop());
    const db = await openMigratedDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    const metrics = createMetrics({ db, processMetrics: false });
    const gauges = ['mailroom_delivery_queue_jobs', 'mailroom_delivery_queue_oldest_due_age_seconds', 'mailroom_webhook_backlog_deliveries', 'mailroom_ses_events_overdue'];
    const metricsWithUpstreams = createMetrics({ db, processMetrics: false, serverUpstreams: ['server:smtp'] });
    assert.equal(valueOf(parseMetrics(await metricsWithUpstreams.scrape()), 'mailroom_upstream_up', { upstream: 'server:smtp' }), 1);
    const up = parseMetrics(await metrics.scrape());
    assert.equal(valueOf(up, 'mailroom_store_up'), 1);
    for (const name of gauges) assert.equal(valueOf(up, name), 0, name);

    await db.destroy();
    const down = parseMetrics(await metrics.scrape());
    assert.equal(valueOf(down, 'mailroom_store_up'), 0);
    // Not 0, which would read as an empty queue.
    for (const name of gauges) assert.ok(!down.some((sample) => sample.name === name), `${name} left out`);
    const downWithUpstreams = parseMetrics(await metricsWithUpstreams.scrape());
    assert.ok(!downWithUpstreams.some((sample) => sample.name === 'mailroom_upstream_up'), 'mailroom_upstream_up left out, not read as 1 or 0');
  });

  it('reads the store-wide gauges off the claim indexes, never scanning a table', async () => {
    const t = await createTestApp(LIMITS);
    cleanups.push(() => t.close());
    const queries = createBacklogRepository(t.db).queries(new Date().toISOString());
    const planOf = async (query: (typeof queries)[keyof typeof queries]) => {
      const compiled = query.compile();
      return storeKindOfDb(t.db) === 'sqlite'
        ? (await t.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` })).rows.map((r) => r.detail).join('\n')
        : await t.db.transaction().execute(async (trx) => {
            await trx.executeQuery({ ...compiled, sql: 'set local enable_seqscan = off', parameters: [] });
            const rows = (await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `explain ${compiled.sql}` })).rows;
            return rows.map((r) => r['QUERY PLAN']).join('\n');
          });
    };
    const { sesOverdue, ...claimQueries } = queries;
    // The overdue count reads the log's `sent` range (the sends in flight), then each one's attempts and events by message.
    const overduePlan = await planOf(sesOverdue);
    assert.match(overduePlan, /log_entries_status_idx/, overduePlan);
    assert.doesNotMatch(overduePlan, /SCAN (e|log_entries|a|delivery_attempts|v|message_events)\b(?! USING)|Seq Scan on (log_entries|delivery_attempts|message_events)/, overduePlan);
    for (const [what, query] of Object.entries(claimQueries)) {
      const plan = await planOf(query);
      assert.match(plan, /(delivery_jobs|webhook_deliveries)_(due|claim)_idx/, `${what}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN (delivery_jobs|webhook_deliveries)\b(?! USING)|Seq Scan/, `${what}: ${plan}`);
      assert.doesNotMatch(plan, /log_entries/, `${what}: ${plan}`);
    }
  });

  it('counts provider errors (a relay that cannot be reached) by provider, host and problem', async () => {
    const closedPort = await freePort();
    const dns = await startDnsServer();
    cleanups.push(() => dns.close());
    const t = await createTestApp(
      { ...LIMITS, DNS_SERVERS: dns.address, MAILROOM_PROVIDER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${closedPort}`, DELIVERY_RETRY_BASE_MS: '60000' },
      { worker: true },
    );
    cleanups.push(() => t.close());
    await addVerifiedDomain(t, dns, 'relay.acme.example');
    const send = await t.call('POST', '/v1/send', { body: sendBody({ from_email: 'hello@relay.acme.example' }) });
    assert.equal(send.json().data.status, 'sent');
    const samples = await waitFor(async () => {
      const now = await scrape(t);
      return valueOf(now, 'mailroom_delivery_outcomes_total', { provider: 'smtp', outcome: 'temporary' }) === 1 ? now : null;
    }, 'the attempt to be written');
    // One recipient, one attempt (the retry is a minute away): one problem counted.
    assert.equal(valueOf(samples, 'mailroom_provider_errors_total', { provider: 'smtp', host: `127.0.0.1:${closedPort}`, problem: 'connection' }), 1);
  });
});
