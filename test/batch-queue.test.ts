import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatchQueue } from '../src/db/batch-queue.js';

describe('batch queue', () => {
  it('batches the items of one event-loop turn, and those pushed while a batch runs form the next', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstBatchHeld = new Promise<void>((resolve) => (release = resolve));
    const done = new Promise<void>((resolve) => {
      const push = createBatchQueue<number>(
        async (batch) => {
          batches.push(batch);
          if (batches.length === 1) await firstBatchHeld;
          if (batch.includes(6)) resolve();
        },
        () => assert.fail('no batch fails here'),
      );
      [1, 2, 3].forEach(push);
      setImmediate(() => {
        // The first batch is running (and held): these wait for the next one.
        [4, 5, 6].forEach(push);
        release();
      });
    });
    await done;
    assert.deepEqual(batches, [[1, 2, 3], [4, 5, 6]]);
  });

  it('reports a batch whose processing throws, and goes on with the next', async () => {
    const failed: number[][] = [];
    const processed: number[][] = [];
    await new Promise<void>((resolve) => {
      const push = createBatchQueue<number>(
        async (batch) => {
          if (batch.includes(1)) throw new Error('boom');
          processed.push(batch);
          resolve();
        },
        (error, batch) => {
          assert.equal((error as Error).message, 'boom');
          failed.push(batch);
          setImmediate(() => [2, 3].forEach(push));
        },
      );
      push(1);
    });
    assert.deepEqual(failed, [[1]]);
    assert.deepEqual(processed, [[2, 3]]);
  });

  it('with a linger, gathers items pushed in separate turns, and flushes early once maxBatch have gathered', async () => {
    const batches: number[][] = [];
    let flushed!: () => void;
    const firstFlush = new Promise<void>((resolve) => (flushed = resolve));
    const push = createBatchQueue<number>(
      async (batch) => {
        batches.push(batch);
        flushed();
      },
      () => assert.fail('no batch fails here'),
      { lingerMs: 60_000, maxBatch: 3 },
    );
    push(1);
    await new Promise((resolve) => setImmediate(resolve));
    push(2);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [], 'still lingering: a minute, unless the batch fills');
    push(3);
    await firstFlush;
    assert.deepEqual(batches, [[1, 2, 3]], 'three turns, one batch, long before the linger ran out');
  });

  it('without a linger, starts a batch as soon as maxBatch items gather, before the turn ends', async () => {
    const batches: number[][] = [];
    const push = createBatchQueue<number>(
      async (batch) => {
        batches.push(batch);
      },
      () => assert.fail('no batch fails here'),
      { maxBatch: 3 },
    );
    for (let i = 1; i <= 7; i++) {
      push(i);
      // Let a started batch finish, as the writer's posts do at once.
      await Promise.resolve();
      await Promise.resolve();
    }
    assert.deepEqual(batches, [[1, 2, 3], [4, 5, 6]], 'two full batches within the turn');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [[1, 2, 3], [4, 5, 6], [7]], 'the rest at its end');
  });

  it('with concurrency 2, starts a second batch while the first is held, and holds a third until one ends', async () => {
    const started: number[][] = [];
    const releases: (() => void)[] = [];
    const push = createBatchQueue<number>(
      async (batch) => {
        started.push(batch);
        await new Promise<void>((resolve) => releases.push(resolve));
      },
      () => assert.fail('no batch fails here'),
      { concurrency: 2 },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    [1, 2].forEach(push);
    await turn();
    [3, 4].forEach(push);
    await turn();
    assert.deepEqual(started, [[1, 2], [3, 4]], 'the second lane took the next turn\'s items while the first batch was held');
    [5, 6].forEach(push);
    await turn();
    [7].forEach(push);
    await turn();
    assert.equal(started.length, 2, 'both lanes busy: the items wait');
    releases[1]!();
    await turn();
    assert.deepEqual(started, [[1, 2], [3, 4], [5, 6, 7]], 'the first batch to end took everything that waited, as one batch');
    releases[0]!();
    releases[2]!();
  });
});

