/** A recipient SES accepted that has heard nothing for SES_EVENT_TIMEOUT: still `sent`, with a note, and counted. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventAbout, publishEvents } from '../src/events/index.js';
import { moveSendEntry } from '../src/sending/index.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { sendThroughSes } from './helpers/ses-sent.js';
import { parseMetrics, valueOf } from './helpers/metrics-text.js';

describe('SES events overdue', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SES_EVENT_TIMEOUT: '1s' });
  });
  after(() => t.close());

  const overdue = async () => valueOf(parseMetrics(await t.services.metrics!.scrape()), 'mailroom_ses_events_overdue');

  it('says "No event from SES yet" for a recipient whose SES hand-over is older than SES_EVENT_TIMEOUT with nothing since, and counts it', async () => {
    assert.equal(await overdue(), 0);
    const hourAgo = new Date(Date.now() - 3_600_000);
    const old = await sendThroughSes(t.call, t.store, ['late@example.com', 'heard@example.com', 'done@example.com'], { acceptedAt: hourAgo });
    const fresh = await sendThroughSes(t.call, t.store, ['new@example.com'], { acceptedAt: new Date(Date.now() + 60_000) });
    await t.store.transaction(async (repos) => {
      const heard = (await repos.logs.findSendEntry(old.messageId, 'heard@example.com'))!;
      await publishEvents(repos, [{ ...eventAbout(heard, 'delivery_delayed', new Date().toISOString()), detail: 'TransientCommunicationFailure' }]);
    });
    await t.store.transaction(async (repos) => {
      await moveSendEntry(repos, (await repos.logs.findSendEntry(old.messageId, 'done@example.com'))!, { to: 'delivered', detail: null });
    });

    const detail = (await t.call('GET', `/v1/messages/${old.messageId}`)).json().data;
    const notes = Object.fromEntries(detail.recipients.map((r: { to: string; status: string; note: string | null }) => [r.to, [r.status, r.note]]));
    assert.equal(notes['late@example.com'][0], 'sent');
    assert.match(notes['late@example.com'][1], /^No event from SES yet: SES accepted it at .*, longer ago than SES_EVENT_TIMEOUT; check the SNS subscription/);
    assert.deepEqual(notes['heard@example.com'], ['sent', null], 'a delay is news from SES');
    assert.deepEqual(notes['done@example.com'], ['delivered', null]);
    const [recent] = (await t.call('GET', `/v1/messages/${fresh.messageId}`)).json().data.recipients;
    assert.equal(recent.note, null);

    assert.equal(await overdue(), 1);
  });
});
