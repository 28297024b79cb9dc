/**
 * Collects items into batches. The first item schedules a flush for the end of
 * the current event-loop turn, so every request read in the same turn joins
 * it; items pushed while a batch is being processed form the next one. Under
 * load batches grow by themselves; alone, an item waits one turn at most.
 * `process` settles every item of its batch itself.
 */
export function createBatchQueue<T>(process: (batch: T[]) => Promise<void>): (item: T) => void {
  let queue: T[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    try {
      while (queue.length > 0) {
        const batch = queue;
        queue = [];
        await process(batch);
      }
    } finally {
      running = false;
    }
  }

  return (item) => {
    queue.push(item);
    // setImmediate, not a microtask: with a synchronous driver a whole
    // transaction completes in microtasks, and nothing else would ever queue.
    if (!running && queue.length === 1) setImmediate(() => void drain());
  };
}
