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
 */
export function createBatchQueue<T>(
  process: (batch: T[]) => Promise<void>,
  onError: (error: unknown, batch: T[]) => void,
  { lingerMs, maxBatch = Infinity }: { lingerMs?: number; maxBatch?: number } = {},
): (item: T) => void {
  let queue: T[] = [];
  let scheduled = false;
  let draining = false;
  let linger: NodeJS.Timeout | undefined;

  async function drain(): Promise<void> {
    clearTimeout(linger);
    draining = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await process(batch);
      } catch (error) {
        onError(error, batch);
      }
    }
    draining = false;
    scheduled = false;
  }

  return (item) => {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      // setImmediate, not a microtask: with a synchronous driver a whole
      // transaction completes in microtasks, and nothing else would ever queue.
      if (lingerMs === undefined) setImmediate(() => void drain());
      else linger = setTimeout(() => void drain(), lingerMs);
    } else if (!draining && queue.length >= maxBatch) {
      void drain();
    }
  };
}
