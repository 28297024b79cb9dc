/**
 * The circuit breaker's state is the store's, so every process on it agrees (issue 55, points 3 and
 * 4): two `mailroom worker` processes (and serve for the API) on one store, a domain routed through a
 * relay refusing to relay for Mailroom (554 5.7.1 at RCPT), then a sink. The first worker alone takes
 * the upstream down (the second frozen meanwhile, SIGSTOP); the second, let go, never saw a failure and
 * still passes it by; after
 * UPSTREAM_DOWN_MS exactly one hand-over probes it (and fails: down again, not "down" twice), then,
 * the relay well, exactly one probes it and brings it back. `upstream.down` and `upstream.up` are
 * posted once each to the endpoint that subscribed to them, never to one with the default events,
 * and the processes log one warning for the down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureGone, jobCounts, pidOfConnection, postSend, smtpWorkspace, startHeldSink, type HeldSink, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { showServeOutputOfFailedTests, startServe, startWorkerProcess, type ServeProcess, type WorkerProcess } from './helpers/serve-process.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp-sink.js';
import { migratedStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';
import { parseMetrics, valueOf } from './helpers/metrics-text.js';
import { apiCall, countsOf, healthOf, routeDomain } from './helpers/upstream-route.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const DOMAIN = 'shared-breaker.example';
/** Long enough for the second worker to start and take part while the upstream is down. */
const DOWN_MS = 6_000;
const METRICS_TOKEN = 'upstream-breaker-shared-token';

function report(t: { diagnostic(message: string): void }, line: string): void {
  t.diagnostic(line);
  console.log(`[upstream-breaker-shared ${TEST_STORE}] ${line}`);
}

describe('two worker processes on one store share the circuit breaker of an upstream', () => {
  showServeOutputOfFailedTests();
  let store: FreshStore;
  let ws: SmtpWorkspace;
  let refusing = true;
  /** Every RCPT the first relay was asked, and when. */
  const asked: { address: string; at: number }[] = [];
  let first: SmtpSink;
  /** Which worker (pid) each message the first relay took came from. */
  const firstTags: string[] = [];
  let second: HeldSink;
  let optIn: WebhookReceiver;
  let byDefault: WebhookReceiver;
  let api: ServeProcess;
  const workers: WorkerProcess[] = [];
  let env: Record<string, string>;
  let firstId: string;

  before(async () => {
    store = await migratedStore();
    ws = await smtpWorkspace(store.env, DOMAIN);
    first = await startSmtpSink({
      onData: (message) => firstTags.push(String(pidOfConnection(message.clientPort, first.port, workers.map((w) => w.pid)) ?? 'unknown')),
      policy(address) {
        asked.push({ address, at: Date.now() });
        return refusing ? { code: 554, text: `5.7.1 <${address}>: Relay access denied` } : undefined;
      },
    });
    second = await startHeldSink({ tagConnection: (port) => String(pidOfConnection(port, second.port, workers.map((w) => w.pid)) ?? 'unknown') });
    [optIn, byDefault] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
    env = {
      ...store.env,
      UPSTREAM_ALLOW_PRIVATE: 'true',
      UPSTREAM_DOWN_MS: String(DOWN_MS),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      METRICS_TOKEN,
      WORKER_POLL_MS: '50',
      // A few jobs each at a time, so that both take a share of a trickle.
      WORKER_CONCURRENCY: '2',
      RATE_LIMIT_SEND_PER_MIN: '1000000',
      RATE_LIMIT_OTHER_PER_MIN: '1000000',
    };
    api = await startServe({ ...env, WORKER_ENABLED: 'false' });
    const route = await routeDomain(api.base, ws.apiKey, `dom_${DOMAIN.replace(/\W/g, '_')}`, [
      { name: 'first', type: 'smtp', url: `smtp://127.0.0.1:${first.port}`, starttls: 'never' },
      { name: 'second', type: 'smtp', url: `smtp://127.0.0.1:${second.port}`, starttls: 'never' },
    ]);
    firstId = route[0]!;
    const subscribed = await apiCall(api.base, ws.apiKey, 'POST', '/v1/webhooks', { url: optIn.url, events: ['upstream.down', 'upstream.up'] });
    assert.equal(subscribed.status, 201, subscribed.text);
    assert.equal((await apiCall(api.base, ws.apiKey, 'POST', '/v1/webhooks', { url: byDefault.url })).status, 201);
  });
  after(async () => {
    for (const w of workers) await ensureGone(w.child);
    await api?.stop();
    await Promise.all([first?.close(), second?.close(), optIn?.close(), byDefault?.close()]);
    await ws?.db.destroy();
    await store?.drop();
  });

  const healthRow = () => ws.db.selectFrom('upstream_health').selectAll().where('key', '=', firstId).executeTakeFirst();
  const allDone = async () => (await jobCounts(ws.db)).pending === 0;
  let sent = 0;
  /** Sends one message at a time, as fast as answered, until `until` holds; answers the message ids. */
  async function trickle(until: () => Promise<boolean> | boolean, what: string | (() => string), timeoutMs: number): Promise<string[]> {
    const ids: string[] = [];
    await waitFor(
      async () => {
        const answer = await postSend(api.base, ws, sent++, { tag: 'trickle' });
        assert.equal(answer.status, 200, JSON.stringify(answer));
        ids.push(answer.id!);
        return until();
      },
      what,
      { timeoutMs, intervalMs: 20 },
    );
    return ids;
  }
  /** mailroom_upstream_up of the first upstream, as the API process (no worker of its own) reads the store. */
  const gauge = async () =>
    valueOf(parseMetrics(await (await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()), 'mailroom_upstream_up', { upstream: firstId });
  const tags = (ids: string[]) => new Set(second.log.filter((a) => ids.includes(a.id)).map((a) => a.tag));

  it('agree that it is down, probe it once when the down time is over, once more to bring it back, and tell it once', { timeout: 90_000 }, async (t) => {
    workers.push(...(await Promise.all([startWorkerProcess(env), startWorkerProcess(env)])));
    // The second is frozen before there is anything to claim: it reads nothing of the upstream until let go.
    process.kill(workers[1]!.pid, 'SIGSTOP');
    const started = Date.now();
    // The first worker alone: 5 refusals take the upstream down.
    await trickle(async () => (await healthRow())?.down_until != null, 'the first upstream to go down', 20_000);
    await waitFor(allDone, 'the hand-overs under way to finish');
    const down = (await healthRow())!;
    assert.ok(Number(down.failures) >= 5, `down after ${down.failures} failures`);
    assert.equal(await healthOf(api.base, ws.apiKey, firstId), 'down');
    assert.equal(await gauge(), 0, 'mailroom_upstream_up is 0 in a process that never sent to it');
    const downAt = Date.parse(down.changed_at);
    const downUntil = Date.parse(down.down_until!);
    assert.equal(downUntil - downAt, DOWN_MS);
    report(t, `down after ${down.failures} failures, ${downAt - started} ms after the first send`);

    // The second worker, let go now, has seen no failure of its own: what it knows is the store's.
    process.kill(workers[1]!.pid, 'SIGCONT');
    const quietFrom = Date.now();
    assert.ok(downUntil - quietFrom > 1_500, `the second worker let go ${quietFrom - downAt} ms into the down time: too late to take part`);
    const duringDown = await trickle(() => Date.now() > downUntil - 200, 'the down time to pass', DOWN_MS + 5_000);
    await waitFor(allDone, 'the sends of the down time to be handed over');
    assert.deepEqual(asked.filter((a) => a.at >= quietFrom && a.at < downUntil), [], 'neither worker asked the first relay while it was down');
    const duringDownTags = tags(duringDown);
    assert.deepEqual([...duringDownTags].sort(), workers.map((w) => String(w.pid)).sort(), 'both workers delivered through the second meanwhile');

    // The down time over: one hand-over, of one worker, probes it; refused, it is down again for another UPSTREAM_DOWN_MS.
    await trickle(async () => Date.parse((await healthRow())!.down_until ?? '0') > downUntil, 'the failed probe to take it down again', 15_000);
    await waitFor(allDone, 'the probe and the sends around it to be handed over');
    const again = (await healthRow())!;
    const probes = asked.filter((a) => a.at >= quietFrom);
    assert.equal(probes.length, 1, `one probe, not ${probes.length}`);
    assert.ok(probes[0]!.at >= downUntil, 'after the down time');
    assert.equal(again.changed_at, down.changed_at, 'a failed probe is no new "down"');

    // The relay well again: one more probe, after the second down time, brings it back, and it takes mail.
    refusing = false;
    const secondDownUntil = Date.parse(again.down_until!);
    const arrivedBefore = first.received.length;
    // Both workers send through it again, the one whose probe brought it back and the other.
    const bothBack = () => new Set(firstTags.slice(arrivedBefore)).size === workers.length;
    await trickle(bothBack, () => `both workers to send through the first relay again (messages by worker: ${JSON.stringify(Object.fromEntries(countsOf(firstTags.slice(arrivedBefore))))})`, DOWN_MS + 15_000);
    await waitFor(allDone, 'the last sends to be handed over');
    const up = (await healthRow())!;
    assert.equal(up.down_until, null);
    assert.equal(await healthOf(api.base, ws.apiKey, firstId), 'healthy');
    assert.equal(await gauge(), 1);
    const upAt = Date.parse(up.changed_at);
    const beforeUp = asked.filter((a) => a.at >= secondDownUntil && a.at < upAt);
    assert.equal(beforeUp.length, 1, `one probe brought it back, not ${beforeUp.length}`);
    assert.equal(asked.filter((a) => a.at > probes[0]!.at && a.at < secondDownUntil).length, 0, 'nothing asked it between the probes');
    report(t, `probed ${probes[0]!.at - downUntil} ms after the down time, again ${beforeUp[0]!.at - secondDownUntil} ms after the second; up at ${upAt - started} ms`);

    // Told once each, to the endpoint that asked, by whichever process made the change.
    const upstreamEvents = (r: WebhookReceiver) => r.received.map((h) => JSON.parse(h.body) as { event: string; upstream_id: string; name: string; last_error: string | null }).filter((e) => e.event.startsWith('upstream.'));
    await waitFor(() => upstreamEvents(optIn).length >= 2, 'upstream.down and upstream.up to be posted');
    await waitFor(async () => (await ws.db.selectFrom('webhook_deliveries').select('id').where('state', '=', 'pending').execute()).length === 0, 'every webhook delivery to be posted');
    const told = upstreamEvents(optIn);
    assert.deepEqual(told.map((e) => [e.event, e.upstream_id, e.name]), [['upstream.down', firstId, 'first'], ['upstream.up', firstId, 'first']]);
    assert.match(told[0]!.last_error ?? '', /554 5\.7\.1 .*Relay access denied/);
    assert.deepEqual(upstreamEvents(byDefault), [], 'the endpoint with the default events hears of no upstream');

    const lines = workers.flatMap((w) => w.output().split('\n'));
    assert.equal(lines.filter((l) => /"level":40/.test(l) && /upstream first is down/.test(l)).length, 1, 'one warning for the down, across both workers');
    assert.equal(lines.filter((l) => /upstream first is up again/.test(l)).length, 1, 'one line for the return');
  });
});
