export interface ByteBudget {
  /**
   * Waits until `bytes` fit beside the shares held (a share alone always
   * fits; first come, first served) and answers the function that gives the
   * share back (once; later calls do nothing). Rejects, holding nothing, if
   * `abandoned` settles first: whoever waited has gone.
   */
  acquire(bytes: number, abandoned?: Promise<unknown>): Promise<() => void>;
  /** Bytes held now, by how many holders, and how many wait (for tests). */
  state(): { held: number; holders: number; waiting: number };
}

/**
 * A budget of bytes that work takes shares of before it holds them in
 * memory, first come, first served (a large share is not starved by small
 * ones). Large sends being read (sending/send-memory.ts) and attachments
 * being loaded for delivery (delivery/attachment-loader.ts) each have one.
 */
export function createByteBudget(budgetBytes: number): ByteBudget {
  let held = 0;
  let holders = 0;
  const waiting: { bytes: number; go(): void }[] = [];

  const admit = () => {
    while (waiting.length > 0 && (holders === 0 || held + waiting[0]!.bytes <= budgetBytes)) {
      const next = waiting.shift()!;
      held += next.bytes;
      holders++;
      next.go();
    }
  };

  return {
    async acquire(bytes, abandoned) {
      await new Promise<void>((go, fail) => {
        const entry = { bytes, go };
        waiting.push(entry);
        admit();
        const leave = () => {
          const at = waiting.indexOf(entry);
          if (at < 0) return;
          waiting.splice(at, 1);
          fail(new Error('Gone before its turn to be read'));
        };
        abandoned?.then(leave, leave);
      });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held -= bytes;
        holders--;
        admit();
      };
    },
    state: () => ({ held, holders, waiting: waiting.length }),
  };
}
