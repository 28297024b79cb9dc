/**
 * The idle wait of a polling loop (the delivery worker, the webhook
 * dispatcher): `pause(ms)` waits that long, or less if `wake()` is called; a
 * wake that came while the loop was busy ends its next pause at once, so no
 * wake is ever lost.
 */
export function createWakeablePause(): { wake(): void; pause(ms: number): Promise<void> } {
  let woken = false;
  let interrupt: (() => void) | null = null;
  return {
    wake() {
      woken = true;
      interrupt?.();
    },
    async pause(ms) {
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          interrupt = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        interrupt = null;
      }
      woken = false;
    },
  };
}
