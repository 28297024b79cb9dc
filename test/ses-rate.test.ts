/**
 * SES's MaxSendRate holds across processes: two `mailroom worker` processes on
 * one store, sending through the SES v2 emulator whose account answers
 * MaxSendRate 5, never hand over more than 5 messages in any one second, as
 * the emulator sees them arrive. The rate's slots are kept in the store
 * (SQLite file or PostgreSQL, as TEST_STORE says), and again in Redis with
 * REDIS_URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, startWorkerProcess, type ServeProcess, type WorkerProcess } from './helpers/serve-process.js';
import { acceptSends, ensureGone, exitWithin, smtpWorkspace, type SmtpWorkspace } from './helpers/delivery-rig.js';
import { sesEnv, startSesEmulator, type SesEmulator } from './helpers/ses-emulator.js';
import { freshRedisPrefix, deleteRedisKeys, migratedStore, TEST_REDIS_URL, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const RATE = 5;
const SENDS = 24;
const WORKER_KEYS = ['AKIAMAILROOMWORKER01', 'AKIAMAILROOMWORKER02'];

/** The most arrivals in any window of `ms` that starts at an arrival (where a densest window can always be moved to start). */
function busiestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

const limiters = [{ name: 'in the store', redis: false }, ...(TEST_REDIS_URL ? [{ name: 'in Redis', redis: true }] : [])];

for (const limiter of limiters) {
  describe(`two mailroom worker processes at MaxSendRate ${RATE}, the rate's slots ${limiter.name}`, () => {
    let store: FreshStore;
    let ws: SmtpWorkspace;
    let emulator: SesEmulator;
    let api: ServeProcess;
    let env: Record<string, string>;
    const workers: WorkerProcess[] = [];
    const prefix = freshRedisPrefix();

    before(async () => {
      store = await migratedStore();
      ws = await smtpWorkspace(store.env, 'ses-rate.example');
      // Each worker signs with a key of its own: the emulator tells their sends apart by it.
      emulator = await startSesEmulator({ maxSendRate: RATE, keys: Object.fromEntries(WORKER_KEYS.map((id) => [id, `${id}-secret`])) });
      env = {
        ...store.env, ...sesEnv(emulator), WORKER_POLL_MS: '50', WORKER_CONCURRENCY: '2', RATE_LIMIT_SEND_PER_MIN: '100000', RATE_LIMIT_RECIPIENTS_PER_MIN: '100000',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...(limiter.redis ? { REDIS_URL: TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix } : {}),
      };
      api = await startServe({ ...env, WORKER_ENABLED: 'false' });
    });
    after(async () => {
      for (const w of workers) await ensureGone(w.child);
      await api?.stop();
      await emulator?.close();
      await ws?.db.destroy();
      await store?.drop();
      if (limiter.redis) await deleteRedisKeys(prefix);
    });

    it(`never more than ${RATE} SendEmail calls in any second, both workers sending`, { timeout: 120_000 }, async (t) => {
      // Queued first, so that both workers find a backlog they could hand over at once; each holds a few jobs at a time (WORKER_CONCURRENCY), so both get a share.
      const ids = await acceptSends(api.base, ws, SENDS, { chunk: SENDS, tag: 'rate' });
      workers.push(...(await Promise.all(WORKER_KEYS.map((id) => startWorkerProcess({ ...env, AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: `${id}-secret` })))));
      await waitFor(() => emulator.sends.length >= SENDS, `all ${SENDS} sends to reach the emulator`, { timeoutMs: 60_000, intervalMs: 50 });
      const shares = WORKER_KEYS.map((id) => emulator.sends.filter((s) => s.accessKeyId === id).length);
      assert.deepEqual(await Promise.all(workers.map((w, i) => exitWithin(w.stop(), 30_000, `worker ${i + 1}`))), [0, 0]);

      assert.equal(emulator.sends.length, SENDS, 'each message once');
      assert.deepEqual(new Set(emulator.sends.flatMap((s) => s.destination?.ToAddresses ?? [])).size, ids.length);
      assert.ok(shares[0]! > 0 && shares[1]! > 0, `both workers sent: ${shares.join(' and ')}`);
      assert.equal(shares[0]! + shares[1]!, SENDS, 'every send came from one of the two workers');
      const times = emulator.sends.map((s) => s.at);
      const most = busiestWindow(times, 1000);
      const mostIn3s = busiestWindow(times, 3000);
      const span = Math.max(...times) - Math.min(...times);
      t.diagnostic(`${SENDS} sends over ${span} ms, at most ${most} in any second and ${mostIn3s} in any 3 s; worker shares ${shares.join(' / ')}`);
      // The slots are 1.1/RATE s apart; a hand-over its process started late (a busy machine delays a timer, never
      // advances it) can arrive in the next slot's second, so one second may see one more than the rate, never
      // more, and three seconds never more than three seconds' worth. Unpaced, the 24 sends arrive in one second.
      assert.ok(most <= RATE + 1, `at most ${RATE} sends in any second, one more with a late hand-over, saw ${most}`);
      assert.ok(mostIn3s <= 3 * RATE, `at most ${3 * RATE} sends in any 3 s, saw ${mostIn3s}`);
      // Not slower than the rate needs either: paced, not stalled (the margin is PACING_MARGIN's tenth, and start-up).
      assert.ok(span < ((SENDS - 1) * 1000 * 1.1) / RATE + 2000, `paced at about the rate: ${span} ms`);
    });
  });
}
