/**
 * The SDK (sdk/, issue 17 point 2) against a real Mailroom listening on a
 * loopback port: every resource once, through real HTTP, its answers checked
 * against what the API answers. Retries are in sdk-retry.test.ts, webhook
 * verification in sdk-webhooks.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mailroom, MailroomRequestError, type LogEntry, type SendEmailRequest } from '../sdk/src/index.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { listenOnLoopback } from './helpers/listening-app.js';
import { createTestApp, sendBody, type TestApp } from './helpers/test-app.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };
const ID = /^[a-z]+_[0-9a-z]{26}$/;
const email = (overrides: Partial<SendEmailRequest> = {}) => sendBody(overrides) as unknown as SendEmailRequest;

describe('the SDK against a real Mailroom', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let baseUrl: string;
  let mailroom: Mailroom;
  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ ...ENV, DNS_SERVERS: dns.address });
    baseUrl = await listenOnLoopback(t);
    mailroom = new Mailroom(t.apiKey, { baseUrl });
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  describe('emails', () => {
    it('sends, and reads the message and its content back', async () => {
      const sent = await mailroom.emails.send(email({ to: ['ada@example.com'], tags: [{ name: 'plan', value: 'pro' }] }));
      assert.equal(sent.error, null);
      assert.match(sent.data!.message_id, ID);
      assert.equal(sent.data!.status, 'sent');

      const { data: message, error } = await mailroom.emails.get(sent.data!.message_id);
      assert.equal(error, null);
      assert.deepEqual(message, (await t.call('GET', `/v1/messages/${sent.data!.message_id}`)).json().data, 'the API answer, unchanged');
      assert.deepEqual([message!.id, message!.tags, message!.recipients.map((r) => r.to)], [sent.data!.message_id, { plan: 'pro' }, ['ada@example.com']]);

      const content = await mailroom.emails.content(sent.data!.message_id);
      assert.deepEqual([content.data?.text, content.data?.html], ['Hello there', null]);
    });

    it('batch-sends, one result per item in order', async () => {
      const { data, error } = await mailroom.emails.batch([email({ to: ['b1@example.com'] }), email({ to: ['b2@example.com'], from_email: 'x@unverified.example' })]);
      assert.equal(error, null);
      assert.deepEqual(data!.map((r) => r.status), ['sent', 'failed']);
      assert.match(data![1]!.error!, /unverified\.example/);
      const logged = await mailroom.logs.list({ message_id: data![0]!.message_id });
      assert.deepEqual(logged.data!.data.map((e) => e.to), ['b1@example.com']);
    });

    it('cancels a scheduled send, and answers 409 as an error for one that went at once', async () => {
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled = await mailroom.emails.send(email({ scheduled_at: later }));
      const canceled = await mailroom.emails.cancel(scheduled.data!.message_id);
      assert.equal(canceled.error, null);
      assert.deepEqual([canceled.data!.message_id, canceled.data!.canceled_recipients], [scheduled.data!.message_id, 1]);

      const immediate = await mailroom.emails.send(email());
      const refused = await mailroom.emails.cancel(immediate.data!.message_id);
      assert.equal(refused.data, null);
      assert.deepEqual(refused.error, {
        status: 409,
        name: 'conflict',
        message: 'Only a scheduled message can be canceled; this one was sent at once',
        attempts: 1,
      });
    });

    it('answers the API\'s validation sentence as the error, and never throws', async () => {
      const { data, error } = await mailroom.emails.send(email({ to: Array.from({ length: 51 }, (_, i) => `r${i}@example.com`) }));
      assert.equal(data, null);
      assert.deepEqual(error, { status: 400, name: 'validation_error', message: 'to must contain at most 50 recipients (got 51)', attempts: 1 });
      const missing = await mailroom.emails.get('msg_00000000000000000000000000');
      assert.deepEqual(missing.error, { status: 404, name: 'not_found', message: 'Message not found', attempts: 1 });
    });
  });

  describe('logs', () => {
    it('lists a page with its total, and iterates every page with the before cursor', async () => {
      const tag = 'sdk-pages';
      for (let i = 0; i < 5; i++) await mailroom.emails.send(email({ to: [`page${i}@example.com`], tags: [{ name: 'run', value: tag }] }));

      const page = await mailroom.logs.list({ tag: `run:${tag}`, limit: 2 });
      assert.equal(page.error, null);
      assert.deepEqual([page.data!.data.length, page.data!.total, page.data!.totalRelation], [2, 5, 'eq']);
      const api = (await t.call('GET', `/v1/send/logs?tag=run:${tag}&limit=100`)).json().data as LogEntry[];
      assert.deepEqual(page.data!.data, api.slice(0, 2), 'the first page as the API answers it');

      // Each iteration stopped once it has more than there are, or an entry twice: pages that did not move on
      // would otherwise go on for ever. The checks below fail instead.
      const iterated: LogEntry[] = [];
      for await (const entry of mailroom.logs.list({ tag: `run:${tag}`, limit: 2 })) {
        iterated.push(entry);
        if (iterated.length > api.length) break;
      }
      assert.deepEqual(iterated, api, 'every entry once, newest first, across three pages of 2, 2 and 1');

      const everything: string[] = [];
      const seen = new Set<string>();
      for await (const entry of mailroom.logs.list({ type: 'send' })) {
        everything.push(entry.id);
        if (seen.has(entry.id)) break;
        seen.add(entry.id);
      }
      assert.equal(everything.length, Number((await t.call('GET', '/v1/send/logs?type=send&limit=1')).headers['x-total-count']));
      assert.equal(new Set(everything).size, everything.length);
    });

    it('throws MailroomRequestError from the iterator only, with the error a call would answer', async () => {
      const listed = mailroom.logs.list({ before: 'log_unknown' });
      assert.equal((await listed).error?.status, 400, 'awaited: an error, not a throw');
      await assert.rejects(
        async () => {
          for await (const _ of listed) assert.fail('no entry expected');
        },
        (error: unknown) => error instanceof MailroomRequestError && error.error.status === 400 && error.message === error.error.message,
      );
    });
  });

  describe('stats', () => {
    it('reads the statistics and the time series', async () => {
      const stats = await mailroom.stats.get();
      assert.deepEqual(stats.data, (await t.call('GET', '/v1/send/stats')).json().data);
      assert.ok(stats.data!.total_sent > 0);
      const ranged = await mailroom.stats.get({ since: '2000-01-01', until: '2000-01-02' });
      assert.deepEqual(ranged.data, { total_sent: 0, delivered: 0, bounced: 0, complained: 0, suppressed: 0, failed: 0 });

      const series = await mailroom.stats.timeseries({ interval: 'hour' });
      assert.equal(series.data!.length, 24);
      assert.equal(series.data!.reduce((sum, bucket) => sum + bucket.total_sent, 0), stats.data!.total_sent);
      assert.match(series.data![0]!.bucket_start, /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    });

    it('reads the engagement of tracked mail and its time series', async () => {
      const hour = `${new Date().toISOString().slice(0, 13)}:00:00.000Z`;
      await t.db.insertInto('engagement_hourly').values({ workspace_id: t.workspaceId, hour, opened: 7, unique_opened: 5, clicked: 3, unique_clicked: 2, machine_opened: 4, machine_clicked: 1, tracked_opens: 20, tracked_clicks: 20 }).execute();
      const engagement = await mailroom.stats.engagement();
      assert.deepEqual(engagement.data, { opened: 7, unique_opened: 5, clicked: 3, unique_clicked: 2, machine_opened: 4, machine_clicked: 1, tracked_opens: 20, tracked_clicks: 20 });
      const series = await mailroom.stats.engagementTimeseries({ interval: 'hour' });
      assert.equal(series.data!.length, 24);
      assert.equal(series.data!.find((b) => b.bucket_start === hour)?.unique_opened, 5);
    });
  });

  describe('domains', () => {
    it('adds, lists, gets, verifies over DNS and removes a domain', async () => {
      const created = await mailroom.domains.create({ domain: 'SDK.Example' });
      assert.equal(created.error, null);
      assert.deepEqual([created.data!.domain, created.data!.status], ['sdk.example', 'pending']);
      const dkim = created.data!.records.find((r) => r.purpose === 'dkim')!;

      assert.ok((await mailroom.domains.list()).data!.some((d) => d.id === created.data!.id));
      assert.deepEqual((await mailroom.domains.get(created.data!.id)).data, created.data);

      dns.setTxt(dkim.name, [dkim.value]);
      const verified = await mailroom.domains.verify(created.data!.id);
      assert.equal(verified.data!.status, 'verified');
      assert.deepEqual(verified.data!.records.find((r) => r.purpose === 'dkim')!.check, { found: true, matches: true, values: [dkim.value] });

      assert.deepEqual((await mailroom.domains.remove(created.data!.id)).data, { id: created.data!.id, deleted: true });
      assert.equal((await mailroom.domains.get(created.data!.id)).error?.message, 'Domain not found');
      assert.equal((await mailroom.domains.create({ domain: 'not a domain' })).error?.status, 400);
    });
  });

  describe('API keys', () => {
    it('creates a key that works, lists it masked, and removes it', async () => {
      const created = await mailroom.apiKeys.create({ name: 'sdk', permission: 'sending_access' });
      assert.equal(created.error, null);
      assert.match(created.data!.key, /^mr_/);
      const listed = (await mailroom.apiKeys.list()).data!.find((k) => k.id === created.data!.id)!;
      assert.deepEqual([listed.name, listed.masked_key, listed.permission, 'key' in listed], ['sdk', created.data!.masked_key, 'sending_access', false]);

      const sender = new Mailroom(created.data!.key, { baseUrl });
      assert.equal((await sender.emails.send(email())).data?.status, 'sent');
      assert.deepEqual((await sender.domains.list()).error, { status: 403, name: 'forbidden', message: 'This API key can only send e-mail', attempts: 1 });

      assert.deepEqual((await mailroom.apiKeys.remove(created.data!.id)).data, { id: created.data!.id, deleted: true });
      assert.deepEqual((await sender.emails.send(email())).error, { status: 401, name: 'unauthorized', message: 'Invalid or missing API key', attempts: 1 });
    });
  });

  describe('webhooks', () => {
    it('creates, lists, gets, rotates the secret of and removes an endpoint', async () => {
      const created = await mailroom.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['bounced', 'delivered'] });
      assert.equal(created.error, null);
      assert.deepEqual(created.data!.events, ['delivered', 'bounced']);
      assert.match(created.data!.secret, /^whsec_/);

      const listed = (await mailroom.webhooks.list()).data!.find((w) => w.id === created.data!.id)!;
      assert.equal(listed.masked_secret, `whsec_${created.data!.secret.slice(6, 10)}********${created.data!.secret.slice(-4)}`);
      const detail = await mailroom.webhooks.get(created.data!.id);
      assert.deepEqual([detail.data!.url, detail.data!.deliveries], ['http://127.0.0.1:9/hooks', []]);

      const rotated = await mailroom.webhooks.rotateSecret(created.data!.id);
      assert.equal(rotated.data!.id, created.data!.id);
      assert.notEqual(rotated.data!.secret, created.data!.secret);

      const unknownDelivery = await mailroom.webhooks.retryDelivery(created.data!.id, 'whd_00000000000000000000000000');
      assert.equal(unknownDelivery.error?.message, 'Webhook delivery not found');

      assert.deepEqual((await mailroom.webhooks.remove(created.data!.id)).data, { id: created.data!.id, deleted: true });
      assert.equal((await mailroom.webhooks.get(created.data!.id)).error?.status, 404);
    });
  });

  describe('suppressions', () => {
    it('adds, gets (any case, encoded), lists, iterates and removes an address', async () => {
      const added = await mailroom.suppressions.add({ email: 'Grace+SDK@Example.com' });
      assert.equal(added.error, null);
      assert.deepEqual([added.data!.email, added.data!.reason, added.data!.source_message_id], ['grace+sdk@example.com', 'manual', null]);
      assert.deepEqual((await mailroom.suppressions.add({ email: 'grace+sdk@example.com' })).data, added.data, 'adding again answers the entry unchanged');

      assert.deepEqual((await mailroom.suppressions.get('GRACE+sdk@example.com')).data, added.data);
      for (let i = 0; i < 3; i++) await mailroom.suppressions.add({ email: `listed${i}@example.com` });
      const page = await mailroom.suppressions.list({ reason: 'manual', limit: 2 });
      assert.deepEqual([page.data!.data.length, page.data!.total], [2, 4]);
      const all: string[] = [];
      for await (const entry of mailroom.suppressions.list({ reason: 'manual', limit: 3 })) {
        all.push(entry.email);
        // More than there are: pages that did not move on, which would go on for ever. The check below fails instead.
        if (all.length > page.data!.total) break;
      }
      assert.deepEqual(all.sort(), ['grace+sdk@example.com', 'listed0@example.com', 'listed1@example.com', 'listed2@example.com']);

      assert.deepEqual((await mailroom.suppressions.remove('grace+sdk@example.com')).data, { email: 'grace+sdk@example.com', deleted: true });
      assert.deepEqual((await mailroom.suppressions.get('grace+sdk@example.com')).error, { status: 404, name: 'not_found', message: 'Suppression not found', attempts: 1 });
    });
  });

  it('answers a missing key as 401 without retrying', async () => {
    const stranger = new Mailroom('mr_not_a_key', { baseUrl });
    assert.deepEqual((await stranger.stats.get()).error, { status: 401, name: 'unauthorized', message: 'Invalid or missing API key', attempts: 1 });
  });
});
