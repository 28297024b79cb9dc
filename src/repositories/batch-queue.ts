/**
 * Collects items into batches. The first item schedules a flush for the end of
 * the current event-loop turn, so every request read in the same turn joins
 * it; items pushed while a batch is being processed form the next one. Under
 * load batches grow by themselves; alone, an item waits one turn at most.
 *
 * `process` settles every item of its batch itself. Should it throw anyway,
 * `onError` hears of that batch and the queue goes on with the next.
 */
export function createBatchQueue<T>(
  process: (batch: T[]) => Promise<void>,
  onError: (error: unknown, batch: T[]) => void,
): (item: T) => void {
  let queue: T[] = [];
  let scheduled = false;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await process(batch);
      } catch (error) {
        onError(error, batch);
      }
    }
    scheduled = false;
  }

  return (item) => {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      // setImmediate, not a microtask: with a synchronous driver a whole
      // transaction completes in microtasks, and nothing else would ever queue.
      setImmediate(() => void drain());
    }
  };
}
