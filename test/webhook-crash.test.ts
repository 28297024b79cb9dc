import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { mailroomCommand, startServe, type ServeProcess } from './helpers/serve-process.js';
import { migratedStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const EVENTS = 300;

describe('mailroom serve killed with SIGKILL while webhook deliveries are pending', () => {
  let store: FreshStore | undefined;
  let receiver: WebhookReceiver | undefined;
  const processes: ServeProcess[] = [];
  after(async () => {
    for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await receiver?.close();
    await store?.drop();
  });

  it(`loses none of ${EVENTS} events' deliveries: after a restart every one arrives`, { timeout: 120_000 }, async (t) => {
    store = await migratedStore();
    const env = { ...store.env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '200', WORKER_POLL_MS: '50', RATE_LIMIT_SEND_PER_MIN: '1000000', RATE_LIMIT_OTHER_PER_MIN: '1000000' };
    const created = mailroomCommand(['workspace', 'create', '--name', 'Crash', '--json'], env);
    const key = JSON.parse(created.stdout).api_key as string;
    // The receiver holds every answer until released: posts are in flight, the rest wait, when the process dies.
    let release!: () => void;
    const held = new Promise<number>((resolve) => (release = () => resolve(200)));
    let holding = true;
    receiver = await startWebhookReceiver(() => (holding ? held : 200));

    const first = await startServe(env);
    processes.push(first);
    const call = (path: string, body: unknown) =>
      fetch(`${first.base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await call('/v1/webhooks', { url: receiver.url, events: ['delivered'] })).status, 201);
    for (let i = 0; i < EVENTS; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          call('/v1/send', { to: [`delivered+${i + j}@${SIMULATOR_DOMAIN}`], from_email: 'hello@sandbox.mailroom.test', subject: 'Crash', text: 'Hi' }).then((r) => assert.equal(r.status, 200)),
        ),
      );
    }

    const db = openDatabase(loadConfig(env));
    try {
      const deliveries = async () => {
        const rows = await db.selectFrom('webhook_deliveries').select(['state', 'lease_owner']).execute();
        return { total: rows.length, delivered: rows.filter((r) => r.state === 'delivered').length, leased: rows.filter((r) => r.lease_owner !== null).length };
      };
      await waitFor(async () => (await deliveries()).total === EVENTS && receiver!.received.length > 0, `all ${EVENTS} deliveries queued and posts in flight`, { timeoutMs: 60_000 });
      first.child.kill('SIGKILL');
      await first.stop();
      const atKill = await deliveries();
      assert.equal(atKill.delivered, 0, 'none was answered before the kill');
      holding = false;
      release();

      const second = await startServe(env);
      processes.push(second);
      const distinct = () => new Set(receiver!.received.map((h) => JSON.parse(h.body).id)).size;
      await waitFor(() => distinct() === EVENTS, `all ${EVENTS} events at the receiver`, { timeoutMs: 60_000, intervalMs: 100 });
      await waitFor(async () => (await deliveries()).delivered === EVENTS, 'every delivery marked delivered', { timeoutMs: 30_000 });
      assert.equal(await second.stop(), 0);
      const line = `[${TEST_STORE}] ${EVENTS} events, ${receiver.received.length} posts received, ${distinct()} distinct; ${atKill.leased} deliveries leased at the kill`;
      t.diagnostic(line);
      console.log(line);
    } finally {
      await db.destroy();
    }
  });
});
