/**
 * A recipient's answer is not the upstream's trouble (issue 55, point 3): a route of two real relays
 * whose first refuses some recipients (550 5.1.1 unknown, 552 5.2.2 mailbox full) and greylists others
 * (451 4.7.1 at the first RCPT of an address). Refusals are recorded once, bounced, suppressed where the
 * address is bad, and never sent to the second relay (another upstream would bounce the mail a second
 * time); a greylisted recipient is retried later on the same route and taken by the first; the first
 * upstream stays healthy through it all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { smtpWorkspace, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { apiCall, attemptsOf, countsOf, healthOf, routeDomain } from './helpers/upstream-route.js';
import { waitFor } from './helpers/wait-for.js';

const DOMAIN = 'recipient-refusals.example';
/** Messages, each to one recipient of every kind: more unknown mailboxes than the 5 failures that take an upstream down. */
const MESSAGES = 8;
const kindOf = (address: string) => address.split(/\d/)[0]! as 'ok' | 'unknown' | 'full' | 'grey';

describe('recipients refused or greylisted by the first relay of a route', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let first: SmtpSink;
  let second: SmtpSink;
  let serve: ServeProcess;
  let firstId: string;
  const greylisted = new Set<string>();
  const ids: string[] = [];
  const recipients = (n: number) => ['ok', 'unknown', 'full', 'grey'].map((kind) => `${kind}${n}@example.net`);

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env, DOMAIN);
    first = await startSmtpSink({
      policy(address) {
        const kind = kindOf(address);
        if (kind === 'unknown') return { code: 550, text: `5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table` };
        if (kind === 'full') return { code: 552, text: `5.2.2 <${address}>: Mailbox full` };
        if (kind === 'grey' && !greylisted.has(address)) {
          greylisted.add(address);
          return { code: 451, text: '4.7.1 Greylisting in action, please come back later' };
        }
        return undefined;
      },
    });
    second = await startSmtpSink();
    serve = await startServe({
      ...store.env,
      UPSTREAM_ALLOW_PRIVATE: 'true',
      // A greylisted recipient is tried again within a second.
      DELIVERY_RETRY_BASE_MS: '300',
      WORKER_POLL_MS: '100',
      RATE_LIMIT_SEND_PER_MIN: '1000000',
    });
    const route = await routeDomain(serve.base, ws.apiKey, `dom_${DOMAIN.replace(/\W/g, '_')}`, [
      { name: 'first', type: 'smtp', url: `smtp://127.0.0.1:${first.port}`, starttls: 'never' },
      { name: 'second', type: 'smtp', url: `smtp://127.0.0.1:${second.port}`, starttls: 'never' },
    ]);
    firstId = route[0]!;
  });
  after(async () => {
    await serve?.stop();
    await Promise.all([first?.close(), second?.close()]);
    await ws?.db.destroy();
    await store?.drop();
  });

  it('bounces the refused once, takes the greylisted later through the first, and sends nothing to the second', { timeout: 60_000 }, async () => {
    for (let n = 0; n < MESSAGES; n++) {
      const sent = await apiCall(serve.base, ws.apiKey, 'POST', '/v1/send', { from_email: ws.from, to: recipients(n), subject: `Mixed ${n}`, text: 'Hello' });
      assert.equal(sent.status, 200, sent.text);
      ids.push(sent.json!.data.message_id);
    }
    const statusOf = async () =>
      new Map((await ws.db.selectFrom('log_entries').select(['recipient', 'status']).where('type', '=', 'send').where('message_id', 'in', ids).execute()).map((e) => [e.recipient, e.status]));
    await waitFor(async () => (await ws.db.selectFrom('delivery_jobs').select('message_id').where('state', '!=', 'done').execute()).length === 0, 'every job to be done (the greylisted retried)');

    const everyone = ids.flatMap((_, n) => recipients(n));
    const status = await statusOf();
    for (const address of everyone) {
      const expected = { ok: 'sent', grey: 'sent', unknown: 'bounced', full: 'bounced' }[kindOf(address)];
      assert.equal(status.get(address), expected, address);
    }

    // Nothing reached the second relay: not a refused recipient, not a greylisted one, nothing at all.
    assert.deepEqual(second.rcptSeen, [], 'the second relay was never asked');
    assert.equal(second.received.length, 0);
    // The first was asked once for each refused address, twice for each greylisted one, once for the others.
    const asked = countsOf(first.rcptSeen);
    for (const address of everyone) assert.equal(asked.get(address), kindOf(address) === 'grey' ? 2 : 1, address);
    const copies = countsOf(first.received.flatMap((m) => m.envelope.rcptTo.map((r) => r.address)));
    assert.deepEqual(
      everyone.filter((a) => copies.get(a) !== (kindOf(a) === 'ok' || kindOf(a) === 'grey' ? 1 : undefined)),
      [],
      'the first relay took each accepted recipient once, and no refused one',
    );

    const attempts = await attemptsOf(ws.db, ids);
    const byRecipient = (address: string) => attempts.filter((a) => a.recipient === address).map((a) => `${a.attempt} ${a.outcome} ${a.upstream}`);
    for (const address of everyone) {
      const kind = kindOf(address);
      const expected =
        kind === 'grey' ? [`1 temporary ${firstId}`, `2 accepted ${firstId}`] : [`1 ${kind === 'ok' ? 'accepted' : 'permanent'} ${firstId}`];
      assert.deepEqual(byRecipient(address), expected, address);
    }
    // One bounce each, once.
    const bounces = await ws.db.selectFrom('message_events').select('recipient').where('type', '=', 'bounced').where('message_id', 'in', ids).execute();
    assert.deepEqual([...countsOf(bounces.map((b) => b.recipient)).entries()].sort(), everyone.filter((a) => ['unknown', 'full'].includes(kindOf(a))).map((a) => [a, 1]).sort());

    // The unknown mailboxes are suppressed (the address is bad); the full ones are not (it may have room tomorrow).
    const suppressions = await apiCall(serve.base, ws.apiKey, 'GET', '/v1/suppressions?limit=100');
    assert.deepEqual(
      (suppressions.json!.data as { email: string }[]).map((s) => s.email).sort(),
      everyone.filter((a) => kindOf(a) === 'unknown').sort(),
    );

    // Refusals of recipients say nothing against the upstream.
    assert.equal(await healthOf(serve.base, ws.apiKey, firstId), 'healthy');
    const health = await ws.db.selectFrom('upstream_health').selectAll().where('key', '=', firstId).executeTakeFirst();
    assert.ok(!health || (Number(health.failures) === 0 && health.down_until === null), JSON.stringify(health));
    assert.doesNotMatch(serve.output(), /is down: sends fail over/);
  });
});
