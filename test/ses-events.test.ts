/**
 * POST /v1/inbound/ses in-process: SNS notifications signed with a test certificate served over https
 * from loopback (trusted here by passing the test CA; test/ses-events-serve.test.ts does it with
 * NODE_EXTRA_CA_CERTS, as an operator would), applied to exactly the recipients they name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildApp, type App } from '../src/app.js';
import { createSesEventsService, type SesEventsService } from '../src/ses-events/index.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { forgerKey, startOtherCertHost, startSnsPublisher, type SnsPublisher } from './helpers/sns-publisher.js';
import { sendThroughSes, sesMessageId } from './helpers/ses-sent.js';
import { bounceEvent, complaintEvent, deliveryDelayEvent, deliveryEvent, rejectEvent } from './helpers/ses-event-json.js';
import { waitFor } from './helpers/wait-for.js';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:mailroom-ses-events';
const PATH = '/v1/inbound/ses';

describe('SES events through SNS', () => {
  let sns: SnsPublisher;
  let t: TestApp;
  let app: App;
  let service: SesEventsService;
  /** Work the service started after answering, held until released (for the answer-first check). */
  let held: (() => Promise<unknown>)[] | undefined;

  before(async () => {
    sns = await startSnsPublisher();
    t = await createTestApp({ SES_SNS_TOPIC_ARNS: TOPIC, SES_SNS_TRUSTED_HOSTS: sns.host, WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_OTHER_PER_MIN: '100000' });
    service = createSesEventsService(t.store, t.config.ses, {
      log: pino({ level: 'silent' }),
      ca: sns.ca,
      schedule: (work) => (held ? held.push(work) : void setImmediate(work)),
    });
    app = await buildApp({ config: t.config, services: { ...t.services, sesEvents: service }, logger: false });
    await app.ready();
  });
  after(async () => {
    await service.stop();
    await app.close();
    await t.close();
    await sns.close();
  });

  const post = (body: unknown) => app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/plain; charset=UTF-8' }, payload: JSON.stringify(body) });
  const status = async (id: string, to: string) => (await t.store.logs.findSendEntry(id, to))?.status;
  const outcomeOf = async (snsId: string) => {
    const row = await waitFor(async () => {
      const found = await t.store.sns.find(snsId);
      return found?.state === 'applied' ? found : undefined;
    }, `notification ${snsId} applied`);
    return JSON.parse(row.outcome!);
  };
  const publish = async (message: object, options: { signatureVersion?: '1' | '2' } = {}) => {
    const envelope = sns.notification({ topicArn: TOPIC, message, ...options });
    const res = await post(envelope);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { success: true, data: { message_id: envelope.MessageId, outcome: 'received' } });
    return { envelope, outcome: await outcomeOf(envelope.MessageId) };
  };

  it('Delivery (eventType shape): delivered, only the recipient it names, matched by SES message id', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['ada@example.com', 'grace@example.net']);
    const { outcome } = await publish(deliveryEvent({ sesMessageId: sent.sesIds['ada@example.com']!, destination: ['ada@example.com'] }, ['ada@example.com']));
    assert.deepEqual([outcome.outcome, outcome.message_id, outcome.matched_by, outcome.recipients], ['applied', sent.messageId, 'ses_message_id', [{ recipient: 'ada@example.com', effect: 'move' }]]);
    assert.equal(await status(sent.messageId, 'ada@example.com'), 'delivered');
    assert.equal(await status(sent.messageId, 'grace@example.net'), 'sent');
  });

  it('Bounce Permanent (notificationType shape, SignatureVersion 2): bounced with SES bounceType, bounceSubType and diagnosticCode in the webhook payload, suppressed', async () => {
    const hook = await t.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['bounced'] } });
    assert.equal(hook.statusCode, 201, hook.body);
    const sent = await sendThroughSes(t.call, t.store, ['lin@example.com', 'mo@example.com']);
    const about = { sesMessageId: sent.sesIds['lin@example.com']!, destination: ['lin@example.com'], shape: 'notificationType' as const };
    const diagnosticCode = 'smtp; 550 5.1.1 <lin@example.com>: Recipient address rejected: User unknown';
    await publish(bounceEvent(about, [{ emailAddress: 'lin@example.com', diagnosticCode }], 'Permanent', 'NoEmail'), { signatureVersion: '2' });
    assert.equal(await status(sent.messageId, 'lin@example.com'), 'bounced');
    assert.equal(await status(sent.messageId, 'mo@example.com'), 'sent');
    const [event] = (await t.store.messageEvents.listForMessage(sent.messageId)).filter((e) => e.type === 'bounced');
    const payload = JSON.parse(event!.payload);
    assert.deepEqual([payload.event, payload.to, payload.bounce_type, payload.bounce_subtype, payload.diagnostic_code], ['bounced', 'lin@example.com', 'Permanent', 'NoEmail', diagnosticCode]);
    const detail = (await t.call('GET', `/v1/messages/${sent.messageId}`)).json().data;
    assert.deepEqual(detail.webhook_deliveries.map((d: { event: string }) => d.event), ['bounced'], 'the webhook gets the bounce');
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['lin@example.com'])).get('lin@example.com'), 'hard_bounce');
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['mo@example.com'])).get('mo@example.com'), undefined);
    await t.call('DELETE', `/v1/webhooks/${hook.json().data.id}`);
  });

  it('Bounce Transient: a soft bounce in the attempts, still sent, not suppressed', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['full@example.com']);
    const about = { sesMessageId: sent.sesIds['full@example.com']!, destination: ['full@example.com'] };
    const { outcome } = await publish(bounceEvent(about, [{ emailAddress: 'full@example.com', status: '4.2.2', diagnosticCode: 'smtp; 452 4.2.2 Mailbox full' }], 'Transient', 'MailboxFull'));
    assert.deepEqual(outcome.recipients, [{ recipient: 'full@example.com', effect: 'recorded' }]);
    assert.equal(await status(sent.messageId, 'full@example.com'), 'sent');
    const [recipient] = (await t.call('GET', `/v1/messages/${sent.messageId}`)).json().data.recipients;
    assert.deepEqual(recipient.attempts.map((a: { provider: string; outcome: string; reply: string }) => [a.provider, a.outcome, a.reply]), [['ses', 'accepted', 'Accepted by SES'], ['inbound', 'temporary', 'smtp; 452 4.2.2 Mailbox full']]);
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['full@example.com'])).size, 0);
  });

  it('Complaint: complained with complaintFeedbackType, suppressed', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['angry@example.com', 'calm@example.com']);
    const about = { sesMessageId: sent.sesIds['angry@example.com']!, destination: ['angry@example.com'] };
    await publish(complaintEvent(about, ['angry@example.com'], 'abuse'));
    const complaint = await t.store.logs.findSendEntry(sent.messageId, 'angry@example.com', 'complaint');
    assert.equal(complaint?.status, 'complained');
    const events = await t.store.messageEvents.listForMessage(sent.messageId);
    assert.deepEqual(events.map((e) => [e.type, e.recipient, JSON.parse(e.payload).feedback_type]), [['complained', 'angry@example.com', 'abuse']]);
    assert.equal((await t.store.suppressions.findSuppressed(t.workspaceId, ['angry@example.com'])).get('angry@example.com'), 'complaint');
    assert.equal(await t.store.logs.findSendEntry(sent.messageId, 'calm@example.com', 'complaint'), undefined);
  });

  it('Reject: failed', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['virus@example.com', 'other@example.com']);
    await publish(rejectEvent({ sesMessageId: sent.sesIds['virus@example.com']!, destination: ['virus@example.com'] }));
    const entry = await t.store.logs.findSendEntry(sent.messageId, 'virus@example.com');
    assert.deepEqual([entry?.status, entry?.error], ['failed', 'SES rejected the message: Bad content']);
    assert.equal(await status(sent.messageId, 'other@example.com'), 'sent');
  });

  it('DeliveryDelay: a delivery_delayed event in the message detail, the status kept, no webhook', async () => {
    const hook = await t.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
    const sent = await sendThroughSes(t.call, t.store, ['slow@example.com', 'fast@example.com']);
    await publish(deliveryDelayEvent({ sesMessageId: sent.sesIds['slow@example.com']!, destination: ['slow@example.com'] }, ['slow@example.com']));
    const detail = (await t.call('GET', `/v1/messages/${sent.messageId}`)).json().data;
    const [slow, fast] = detail.recipients;
    assert.equal(slow.status, 'sent');
    assert.deepEqual(slow.events.map((e: { type: string; status: string; detail: string }) => [e.type, e.status, e.detail]), [
      ['delivery_delayed', 'sent', 'TransientCommunicationFailure: smtp; 421 4.4.1 Unable to connect to remote host'],
    ]);
    assert.deepEqual(fast.events, []);
    assert.deepEqual(detail.webhook_deliveries, [], "webhooks hear SPEC's kinds only");
    await t.call('DELETE', `/v1/webhooks/${hook.json().data.id}`);
  });

  it("matches by Mailroom's Message-ID in mail.headers when SES's id is unknown", async () => {
    const sent = await sendThroughSes(t.call, t.store, ['relayed@example.com', 'untouched@example.com']);
    const { outcome } = await publish(deliveryEvent({ sesMessageId: sesMessageId(), messageIdHeader: sent.messageIdHeader, destination: ['relayed@example.com'] }, ['relayed@example.com']));
    assert.deepEqual([outcome.matched_by, outcome.message_id], ['message_id_header', sent.messageId]);
    assert.equal(await status(sent.messageId, 'relayed@example.com'), 'delivered');
    assert.equal(await status(sent.messageId, 'untouched@example.com'), 'sent');
  });

  it('an event matching no message is recorded as ignored with the reason; a recipient the message was not for is ignored', async () => {
    const unknown = sesMessageId();
    const { outcome } = await publish(deliveryEvent({ sesMessageId: unknown, messageIdHeader: '<someone-else@example.org>', destination: ['x@example.com'] }, ['x@example.com']));
    assert.deepEqual([outcome.outcome, outcome.message_id], ['ignored', null]);
    assert.equal(outcome.reason, `no message here has SES message id ${unknown} nor Message-ID <someone-else@example.org> nor Message-ID ${unknown}`);

    const sent = await sendThroughSes(t.call, t.store, ['mine@example.com']);
    const second = await publish(deliveryEvent({ sesMessageId: sent.sesIds['mine@example.com']!, destination: ['mine@example.com'] }, ['stranger@example.com']));
    assert.deepEqual(second.outcome.recipients, [{ recipient: 'stranger@example.com', effect: 'ignored', reason: "stranger@example.com is not a recipient this event's message was sent to" }]);
    assert.equal(await status(sent.messageId, 'mine@example.com'), 'sent');
  });

  it('a replay is answered 200 and applied once', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['twice@example.com']);
    const about = { sesMessageId: sent.sesIds['twice@example.com']!, destination: ['twice@example.com'] };
    const { envelope } = await publish(complaintEvent(about, ['twice@example.com']));
    const again = await post(envelope);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().data, { message_id: envelope.MessageId, outcome: 'duplicate' });
    const complaints = (await t.call('GET', '/v1/send/logs?type=complaint')).json().data.filter((e: { message_id: string }) => e.message_id === sent.messageId);
    assert.equal(complaints.length, 1);
    assert.equal((await t.store.messageEvents.listForMessage(sent.messageId)).length, 1);
  });

  it('answers before the event is applied: the 200 comes while applying is held', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['held@example.com']);
    held = [];
    const envelope = sns.notification({ topicArn: TOPIC, message: deliveryEvent({ sesMessageId: sent.sesIds['held@example.com']!, destination: ['held@example.com'] }, ['held@example.com']) });
    const res = await post(envelope);
    assert.equal(res.statusCode, 200);
    assert.equal(held.length, 1, 'the apply step was handed on, not run');
    assert.equal(await status(sent.messageId, 'held@example.com'), 'sent', 'answered before the effects');
    assert.equal((await t.store.sns.find(envelope.MessageId))?.state, 'received', 'recorded durably before the answer');
    const work = held;
    held = undefined;
    await Promise.all(work.map((w) => w()));
    assert.equal(await status(sent.messageId, 'held@example.com'), 'delivered');
  });

  it('a notification answered but never applied (the process died) is applied by the periodic pass, once', async () => {
    const sent = await sendThroughSes(t.call, t.store, ['stranded@example.com']);
    held = [];
    const envelope = sns.notification({ topicArn: TOPIC, message: deliveryEvent({ sesMessageId: sent.sesIds['stranded@example.com']!, destination: ['stranded@example.com'] }, ['stranded@example.com']) });
    assert.equal((await post(envelope)).statusCode, 200);
    held = undefined; // the work is dropped, as a process that stopped would drop it
    await service.pass(new Date(Date.now() + 60_000));
    assert.equal(await status(sent.messageId, 'stranded@example.com'), 'delivered');
    assert.equal(await service.apply(envelope.MessageId), undefined, 'taken once');
    assert.equal((await t.store.messageEvents.listForMessage(sent.messageId)).length, 1);
  });

  describe('refused with 403 in the envelope', () => {
    const refused = async (body: unknown, reason: RegExp) => {
      const res = await post(body);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().success, false);
      assert.match(res.json().error, reason);
      assert.deepEqual(Object.keys(res.json()), ['success', 'error']);
    };
    const message = deliveryEvent({ sesMessageId: sesMessageId(), destination: ['a@example.com'] }, ['a@example.com']);

    it('a forged signature (another key), and a field changed after signing', async () => {
      await refused(sns.notification({ topicArn: TOPIC, message, key: forgerKey() }), /^SNS notification refused: its signature does not verify$/);
      const signed = sns.notification({ topicArn: TOPIC, message });
      await refused({ ...signed, Message: signed.Message.replace('a@example.com', 'b@example.com') }, /signature does not verify/);
      await refused({ ...signed, Signature: 'AAAA' }, /signature does not verify/);
    });

    it('a certificate on another host, never fetched; an http:// certificate URL', async () => {
      const other = await startOtherCertHost();
      try {
        await refused(sns.notification({ topicArn: TOPIC, message, certUrl: other.certUrl }), /its SigningCertURL is refused: its host 127\.0\.0\.1:\d+ is not one of SES_SNS_TRUSTED_HOSTS/);
        assert.equal(other.fetches, 0);
      } finally {
        await other.close();
      }
      await refused(sns.notification({ topicArn: TOPIC, message, certUrl: sns.certUrl.replace('https:', 'http:') }), /its SigningCertURL is refused: it is not https \(http\)/);
      const fetches = sns.certFetches;
      await refused(sns.notification({ topicArn: TOPIC, message, certUrl: `https://${sns.host}/anything-else` }), /it names no \.pem certificate/);
      assert.equal(sns.certFetches, fetches);
    });

    it('another topic, a stale timestamp, something that is no SNS message', async () => {
      await refused(sns.notification({ topicArn: 'arn:aws:sns:us-east-1:210987654321:someone-elses-topic', message }), /its TopicArn is not one of SES_SNS_TOPIC_ARNS/);
      await refused(sns.notification({ topicArn: TOPIC, message, timestamp: new Date(Date.now() - 61 * 60_000) }), /its Timestamp is more than an hour from now/);
      await refused({ hello: 'world' }, /the SNS message has no Type/);
      const res = await app.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/plain; charset=UTF-8' }, payload: 'not json' });
      assert.equal(res.statusCode, 403);
    });

    it('everything while SES_SNS_TOPIC_ARNS is unset, saying why in the log', async () => {
      const lines: string[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const closed = createSesEventsService(t.store, { ...t.config.ses, snsTopicArns: [] }, { log, ca: sns.ca });
      const closedApp = await buildApp({ config: t.config, services: { ...t.services, sesEvents: closed }, logger: false });
      try {
        const res = await closedApp.inject({ method: 'POST', url: PATH, headers: { 'content-type': 'text/plain; charset=UTF-8' }, payload: JSON.stringify(sns.notification({ topicArn: TOPIC, message })) });
        assert.equal(res.statusCode, 403);
        assert.deepEqual(res.json(), { success: false, error: 'SNS notification refused: SES_SNS_TOPIC_ARNS is not set on this installation' });
        assert.ok(lines.some((line) => JSON.parse(line).msg.includes('SES_SNS_TOPIC_ARNS is not set')), lines.join(''));
      } finally {
        await closedApp.close();
      }
    });
  });

  it('SubscriptionConfirmation: SubscribeURL fetched (again after a failure), /readyz shows it pending until confirmed; UnsubscribeConfirmation is logged, never fetched', async () => {
    const topic = 'arn:aws:sns:us-east-1:123456789012:mailroom-ses-events';
    sns.failConfirms = 1;
    const before = sns.confirmCalls.length;
    const confirmation = sns.subscription({ topicArn: topic });
    const res = await post(confirmation);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.outcome, 'confirming');
    await waitFor(() => sns.confirmCalls.length > before, 'the first confirmation call');
    const pending = await waitFor(async () => (await t.store.sns.findSubscription(topic))?.last_error, 'the failed confirmation recorded');
    assert.equal(pending, 'it answered HTTP 500');
    assert.deepEqual((await app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready', ses_sns_subscriptions_pending: [topic] });
    await waitFor(async () => (await t.store.sns.findSubscription(topic))?.state === 'confirmed', 'the subscription confirmed', { timeoutMs: 10_000 });
    assert.equal(sns.confirmCalls.length, before + 2);
    assert.deepEqual(new Set(sns.confirmCalls.slice(before)), new Set([confirmation.Token]));
    assert.deepEqual((await app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
    assert.equal((await post(confirmation)).json().data.outcome, 'duplicate');

    const calls = sns.confirmCalls.length;
    const unsubscribe = await post(sns.subscription({ topicArn: topic, type: 'UnsubscribeConfirmation' }));
    assert.deepEqual(unsubscribe.json().data.outcome, 'logged');
    await service.pass();
    assert.equal(sns.confirmCalls.length, calls, 'an UnsubscribeConfirmation is never fetched');
  });

  it('a SubscriptionConfirmation whose SubscribeURL is on an untrusted host is refused', async () => {
    const res = await post(sns.subscription({ topicArn: TOPIC, subscribeUrl: 'https://sns.example.com/?Action=ConfirmSubscription&Token=x' }));
    assert.equal(res.statusCode, 403);
    assert.match(res.json().error, /its SubscribeURL is refused: its host sns\.example\.com is not one of SES_SNS_TRUSTED_HOSTS/);
  });
});
