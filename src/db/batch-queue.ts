/**
 * Collects items into batches. The first item schedules a flush for the end of
 * the current event-loop turn, so every request read in the same turn joins
 * it; items pushed while a batch is being processed form the next one. Under
 * load batches grow by themselves; alone, an item waits one turn at most.
 *
 * `process` settles every item of its batch itself. Should it throw anyway,
 * `onError` hears of that batch and the queue goes on with the next.
 *
 * With `lingerMs`, the first item waits that long for company instead of one
 * turn, unless `maxBatch` items gather first: for items that trickle in from
 * separate events (outcomes of hand-overs), where a turn gathers one at most.
 *
 * With `concurrency` above 1, that many batches may be processed at once: items
 * that queue while one is in flight start the next batch at the end of their
 * turn if a lane is free, and otherwise wait for the first batch that ends.
 */
export function createBatchQueue<T>(
  process: (batch: T[]) => Promise<void>,
  onError: (error: unknown, batch: T[]) => void,
  { lingerMs, maxBatch = Infinity, concurrency = 1 }: { lingerMs?: number; maxBatch?: number; concurrency?: number } = {},
): (item: T) => void {
  let queue: T[] = [];
  let running = 0;
  let flush: NodeJS.Immediate | NodeJS.Timeout | undefined;

  function cancelFlush(): void {
    if (flush === undefined) return;
    if (lingerMs === undefined) clearImmediate(flush as NodeJS.Immediate);
    else clearTimeout(flush as NodeJS.Timeout);
    flush = undefined;
  }

  function start(): void {
    cancelFlush();
    const batch = queue;
    queue = [];
    running++;
    void (async () => {
      try {
        await process(batch);
      } catch (error) {
        onError(error, batch);
      }
      running--;
      // What queued meanwhile has waited for this batch already: it goes now.
      if (queue.length > 0 && running < concurrency) start();
    })();
  }

  return (item) => {
    queue.push(item);
    // Every lane busy: the first batch to end takes it.
    if (running >= concurrency) return;
    if (flush === undefined) {
      // setImmediate, not a microtask: with a synchronous driver a whole
      // transaction completes in microtasks, and nothing else would ever queue.
      flush = lingerMs === undefined ? setImmediate(start) : setTimeout(start, lingerMs);
    } else if (queue.length >= maxBatch) {
      start();
    }
  };
}
