/**
 * How `serve` and `worker` end: on SIGTERM or SIGINT, `stop` (stop accepting,
 * answer the requests in flight, let work in flight finish or give it back,
 * close the store), then exit 0. Exit 1 if stopping failed, or if it is not
 * done after `graceMs` (SHUTDOWN_GRACE_MS): a supervisor waits that long before
 * it kills, and jobs still leased then are taken over once their leases run out.
 *
 * A second signal while stopping changes nothing: `npm start` in a terminal
 * hands Node Ctrl-C's SIGINT twice (the terminal's, and the one npm forwards),
 * and the default action of the second would cut the clean stop short.
 */
export function stopOnSignal(stop: (signal: NodeJS.Signals) => Promise<unknown>, graceMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`mailroom: not stopped within SHUTDOWN_GRACE_MS (${graceMs} ms); exiting with work in flight, taken over once its leases run out\n`);
      process.exit(1);
    }, graceMs);
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`mailroom: could not stop cleanly: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
