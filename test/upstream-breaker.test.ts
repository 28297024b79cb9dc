/**
 * The circuit breaker of two processes on one store (upstream-breaker.ts), each its own breaker with
 * its own cache, on a clock the test moves: who probes a down upstream, and how soon a process that
 * did not probe it learns it is back.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createStore } from '../src/composition/store.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import type { Db } from '../src/db/database.js';
import type { Store } from '../src/db/store.js';
import { BREAKER_RULE, createUpstreamBreaker, HEALTH_READ_EVERY_MS, type UpstreamBreaker, type UpstreamTransition } from '../src/delivery/upstream-breaker.js';
import { freshStore, type FreshStore } from './helpers/test-store.js';

const KEY = 'ups_breaker_test';
const START = Date.parse('2026-01-01T00:00:00.000Z');

describe('the circuit breakers of two processes on one store', () => {
  let fresh: FreshStore;
  const dbs: Db[] = [];
  let clock: number;
  let told: UpstreamTransition[];
  let one: UpstreamBreaker;
  let other: UpstreamBreaker;

  /** A process's breaker over a store connection of its own. */
  async function processBreaker(): Promise<UpstreamBreaker> {
    const db = await openMigratedDatabase(loadConfig({ ...fresh.env, LOG_LEVEL: 'silent' }));
    dbs.push(db);
    const store: Store = createStore(db);
    return createUpstreamBreaker(store, async (change) => void told.push(change), BREAKER_RULE, () => clock);
  }

  before(async () => {
    fresh = await freshStore();
  });
  beforeEach(async () => {
    await dbs[0]?.deleteFrom('upstream_health').execute();
    clock = START;
    told = [];
    [one, other] = [await processBreaker(), await processBreaker()];
  });
  after(async () => {
    await Promise.all(dbs.map((db) => db.destroy()));
    await fresh.drop();
  });

  async function takeDown(breaker: UpstreamBreaker): Promise<void> {
    for (let i = 0; i < BREAKER_RULE.failures; i++) {
      assert.equal(await breaker.admit(KEY, false), 'yes');
      await breaker.failed(KEY, '554 5.7.1 Relay access denied', 'yes');
    }
    assert.deepEqual(told.map((c) => c.state), ['down']);
  }

  /** Each process asks `times` times, `everyMs` apart: what each was answered. */
  async function ask(times: number, everyMs: number): Promise<string[]> {
    const answers: string[] = [];
    for (let i = 0; i < times; i++) {
      answers.push(`${await one.admit(KEY, false)}/${await other.admit(KEY, false)}`);
      clock += everyMs;
    }
    return answers;
  }

  it('passes a down upstream by in both processes until the down time is over, then lets exactly one probe it', async () => {
    await takeDown(one);
    assert.deepEqual(new Set(await ask(10, (BREAKER_RULE.downMs - 1) / 10)), new Set(['no/no']));
    clock = START + BREAKER_RULE.downMs + 1;
    const answers = (await ask(20, 100)).flatMap((a) => a.split('/'));
    assert.equal(answers.filter((a) => a === 'probe').length, 1, answers.join(' '));
    assert.equal(answers.filter((a) => a === 'yes').length, 0);
  });

  it('sends again from the process that lost the probe, within HEALTH_READ_EVERY_MS of the probe bringing it back, however busy it is', async () => {
    await takeDown(one);
    clock = START + BREAKER_RULE.downMs + 1;
    assert.equal(await other.admit(KEY, false), 'probe');
    // The loser asks on and on, several times a second, while the probe is out…
    for (let i = 0; i < 10; i++) {
      assert.equal(await one.admit(KEY, false), 'no');
      clock += 50;
    }
    // …and after it came back.
    await other.answered(KEY);
    assert.deepEqual(told.map((c) => c.state), ['down', 'up']);
    const cameBackAt = clock;
    let firstYes: number | undefined;
    for (let i = 0; i < 60 && firstYes === undefined; i++) {
      if ((await one.admit(KEY, false)) === 'yes') firstYes = clock;
      clock += 50;
    }
    assert.ok(firstYes !== undefined && firstYes - cameBackAt <= HEALTH_READ_EVERY_MS, `the process that lost the probe sent again ${firstYes === undefined ? 'never' : `${firstYes - cameBackAt} ms after`}`);
  });

  it('takes it down again for the down time when the probe fails, without telling "down" twice; the next probe brings it back, told once', async () => {
    await takeDown(one);
    clock = START + BREAKER_RULE.downMs + 1;
    const [admissionOne, admissionOther] = [await one.admit(KEY, false), await other.admit(KEY, false)];
    const prober = admissionOne === 'probe' ? one : other;
    assert.deepEqual([admissionOne, admissionOther].sort(), ['no', 'probe']);
    await prober.failed(KEY, '554 5.7.1 Relay access denied', 'probe');
    assert.deepEqual(told.map((c) => c.state), ['down']);
    const probedAt = clock;
    clock += HEALTH_READ_EVERY_MS;
    assert.deepEqual(new Set(await ask(10, (BREAKER_RULE.downMs - HEALTH_READ_EVERY_MS - 1) / 10)), new Set(['no/no']), 'down again for the down time');
    clock = probedAt + BREAKER_RULE.downMs + 1;
    const answers = (await ask(5, 100)).flatMap((a) => a.split('/'));
    assert.equal(answers.filter((a) => a === 'probe').length, 1, answers.join(' '));
    await (answers.indexOf('probe') % 2 === 0 ? one : other).answered(KEY);
    assert.deepEqual(told.map((c) => c.state), ['down', 'up']);
    clock += HEALTH_READ_EVERY_MS;
    assert.deepEqual(await ask(1, 0), ['yes/yes']);
  });
});
