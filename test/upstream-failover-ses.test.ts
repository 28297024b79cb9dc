/**
 * SES throttling as upstream trouble (issue 55, points 3 and 5): SES answering every SendEmail with
 * TooManyRequestsException (429, the emulator's storm) fails over to a relay at once, and the SES
 * upstream goes down. Once as a workspace's route (an `ses` upstream on the emulator, then an `smtp`
 * one), once as MAILROOM_PROVIDER=ses,smtp for a domain without a route of its own (`server:ses`,
 * then `server:smtp`). `mailroom serve` as users run it; the retry delay left at its default minute.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { acceptSends, postSend, smtpWorkspace, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { showServeOutputOfFailedTests, startServe, type ServeProcess } from './helpers/serve-process.js';
import { startSesEmulator, TEST_ACCESS_KEY_ID, TEST_REGION, TEST_SECRET_ACCESS_KEY, sesEnv, type SesEmulator } from './helpers/ses-emulator.js';
import { startSwitchableRelay, type SwitchableRelay } from './helpers/switchable-relay.js';
import { migratedStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';
import { attemptsOf, countsOf, healthOf, routeDomain, statusCounts } from './helpers/upstream-route.js';
import { waitFor } from './helpers/wait-for.js';

const BURST = 300;
const DOWN_MS = 2_000;
const THROTTLED = { status: 429, type: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' };

function report(t: { diagnostic(message: string): void }, line: string): void {
  t.diagnostic(line);
  console.log(`[upstream-failover-ses ${TEST_STORE}] ${line}`);
}

interface Rig {
  store: FreshStore;
  ws: SmtpWorkspace;
  ses: SesEmulator;
  relay: SwitchableRelay;
  serve: ServeProcess;
  domainId: string;
}

/** A store, a workspace with a verified domain, the SES emulator (throttling every send) and a relay; serve with `env` on top. */
async function startRig(domain: string, env: (ses: SesEmulator, relay: SwitchableRelay) => Record<string, string>): Promise<Rig> {
  const store = await migratedStore();
  const ws = await smtpWorkspace(store.env, domain);
  // A send rate well above the burst's: turns at SES's rate are not what is measured.
  const [ses, relay] = await Promise.all([startSesEmulator({ maxSendRate: 1_000 }), startSwitchableRelay('accept')]);
  ses.setFailing(THROTTLED);
  const serve = await startServe({
    ...store.env,
    UPSTREAM_ALLOW_PRIVATE: 'true',
    UPSTREAM_DOWN_MS: String(DOWN_MS),
    WORKER_POLL_MS: '100',
    RATE_LIMIT_SEND_PER_MIN: '1000000',
    RATE_LIMIT_RECIPIENTS_PER_MIN: '1000000',
    RATE_LIMIT_OTHER_PER_MIN: '1000000',
    ...env(ses, relay),
  });
  return { store, ws, ses, relay, serve, domainId: `dom_${domain.replace(/\W/g, '_')}` };
}

async function stopRig(rig: Rig | undefined): Promise<void> {
  if (!rig) return;
  await rig.serve.stop();
  await Promise.all([rig.ses.close(), rig.relay.close()]);
  await rig.ws.db.destroy();
  await rig.store.drop();
}

/** Sends the burst while SES throttles everything; checks that every recipient went out once through the relay, at the first attempt. */
async function burstThroughStorm(t: { diagnostic(message: string): void }, rig: Rig, domain: string, sesKey: string, relayKey: string): Promise<string[]> {
  const started = Date.now();
  const ids = await acceptSends(rig.serve.base, rig.ws, BURST, { chunk: 50, tag: 'storm-' });
  const wanted = new Set(ids.map((id) => `<${id}@${domain}>`));
  const arrived = () => rig.relay.arrivals.filter((a) => wanted.has(a.messageId!)).length;
  await waitFor(() => arrived() >= BURST, () => `all ${BURST} to reach the relay (${arrived()} so far)`, { timeoutMs: 90_000, intervalMs: 100 });
  const delivered = Date.now() - started;
  await waitFor(async () => (await rig.ws.db.selectFrom('delivery_jobs').select('message_id').where('state', '!=', 'done').execute()).length === 0, 'every job to be done');

  const copies = countsOf(rig.relay.arrivals.map((a) => a.messageId!).filter((m) => wanted.has(m)));
  assert.deepEqual([...copies.values()].filter((n) => n !== 1), [], 'each once at the relay');
  assert.equal(rig.ses.sends.length, 0, 'SES took nothing');
  assert.ok(rig.ses.failedSends() >= 5, `SES was tried and throttled (${rig.ses.failedSends()} times)`);
  assert.deepEqual(await statusCounts(rig.ws.db, ids), { sent: BURST }, 'none bounced or failed');
  const attempts = await attemptsOf(rig.ws.db, ids);
  const accepted = attempts.filter((a) => a.outcome === 'accepted');
  assert.equal(accepted.length, BURST);
  assert.ok(accepted.every((a) => a.upstream === relayKey && a.provider === 'smtp' && a.attempt === 1), 'each accepted through the relay at the first attempt');
  const tries = attempts.filter((a) => a.outcome !== 'accepted');
  assert.deepEqual([...new Set(tries.map((a) => `${a.outcome} ${a.provider} ${a.upstream}`))], [`temporary ses ${sesKey}`], 'the throttled tries kept as temporary attempts of SES');
  assert.ok(tries.every((a) => /Amazon SES is throttling: TooManyRequestsException/.test(a.detail)), 'each says SES was throttling');
  assert.ok(tries.length <= 2 * 32 + 5, `${tries.length} of ${BURST} were tried on SES: it was not passed by once down`);
  // Every recipient tried on SES also came to the relay: nobody was left with the throttled outcome.
  const triedOnSes = new Set(tries.map((a) => a.message_id));
  assert.ok([...triedOnSes].every((id) => accepted.some((a) => a.message_id === id)));
  const health = await rig.ws.db.selectFrom('upstream_health').selectAll().where('key', '=', sesKey).executeTakeFirstOrThrow();
  assert.notEqual(health.down_until, null, 'the SES upstream is down');
  assert.match(health.last_error ?? '', /TooManyRequestsException/);
  const downLines = rig.serve.output().split('\n').filter((line) => /"level":40/.test(line) && /"upstream":"[^"]+"/.test(line) && / is down: sends fail over/.test(line));
  assert.equal(downLines.length, 1, 'one warning for the down');
  assert.ok(downLines[0]!.includes(`"upstream":"${sesKey}"`));
  report(t, `${sesKey}: ${BURST} through the relay in ${delivered} ms; SES throttled ${rig.ses.failedSends()} tries and went down ${Date.parse(health.changed_at) - started} ms after the first send`);
  return ids;
}

/** The storm over: sends one at a time until SES takes one (the probe after UPSTREAM_DOWN_MS). */
async function sesTakesMailAgain(rig: Rig, sesKey: string): Promise<void> {
  rig.ses.setFailing(undefined);
  let n = 0;
  await waitFor(
    async () => {
      assert.equal((await postSend(rig.serve.base, rig.ws, n++, { tag: 'calm-' })).status, 200);
      return rig.ses.sends.length > 0;
    },
    'SES to be sent mail again',
    { timeoutMs: DOWN_MS + 20_000, intervalMs: 50 },
  );
  await waitFor(async () => (await rig.ws.db.selectFrom('upstream_health').select('down_until').where('key', '=', sesKey).executeTakeFirstOrThrow()).down_until === null, 'SES to be up again', { timeoutMs: 5_000 });
}

describe('a route of an SES upstream, then a relay, while SES throttles every send', () => {
  showServeOutputOfFailedTests();
  const DOMAIN = 'ses-route.example';
  let rig: Rig;
  let sesId: string;
  let relayId: string;

  before(async () => {
    // MAILROOM_PROVIDER is the sandbox: mail that did not follow the route would stay on this machine, never reaching SES or the relay.
    rig = await startRig(DOMAIN, () => ({ MAILROOM_PROVIDER: 'sandbox' }));
    const route = await routeDomain(rig.serve.base, rig.ws.apiKey, rig.domainId, [
      { name: 'ses', type: 'ses', region: TEST_REGION, access_key_id: TEST_ACCESS_KEY_ID, secret_access_key: TEST_SECRET_ACCESS_KEY, endpoint: rig.ses.url },
      { name: 'relay', type: 'smtp', url: rig.relay.url, starttls: 'never' },
    ]);
    [sesId, relayId] = [route[0]!, route[1]!];
  });
  after(() => stopRig(rig));

  it('delivers every send through the relay, once, at the first attempt; the SES upstream goes down', { timeout: 120_000 }, async (t) => {
    await burstThroughStorm(t, rig, DOMAIN, sesId, relayId);
    assert.equal(await healthOf(rig.serve.base, rig.ws.apiKey, sesId), 'down');
    assert.equal(await healthOf(rig.serve.base, rig.ws.apiKey, relayId), 'healthy');
  });

  it('sends through SES again once the storm is over', { timeout: 60_000 }, async () => {
    await sesTakesMailAgain(rig, sesId);
    assert.equal(await healthOf(rig.serve.base, rig.ws.apiKey, sesId), 'healthy');
  });
});

describe('MAILROOM_PROVIDER=ses,smtp for a domain without a route of its own, while SES throttles every send', () => {
  showServeOutputOfFailedTests();
  const DOMAIN = 'server-list.example';
  let rig: Rig;

  before(async () => {
    rig = await startRig(DOMAIN, (ses, relay) => ({ ...sesEnv(ses), MAILROOM_PROVIDER: 'ses,smtp', SES_MAX_SEND_RATE: '1000', SMTP_URL: relay.url }));
  });
  after(() => stopRig(rig));

  it('delivers every send through SMTP_URL\'s relay; attempts show server:ses, then server:smtp', { timeout: 120_000 }, async (t) => {
    const ids = await burstThroughStorm(t, rig, DOMAIN, 'server:ses', 'server:smtp');
    // A recipient tried on both: SES's try first, then the relay's, in one attempt.
    const attempts = await attemptsOf(rig.ws.db, ids);
    const both = attempts.find((a) => a.upstream === 'server:ses')!;
    const own = attempts.filter((a) => a.message_id === both.message_id).map((a) => a.upstream);
    assert.deepEqual(own, ['server:ses', 'server:smtp']);
  });

  it('sends through SES again once the storm is over', { timeout: 60_000 }, async () => {
    await sesTakesMailAgain(rig, 'server:ses');
  });
});
