/** A health check gives up on a dependency that has not answered within this. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export interface HealthReport {
  /** Names of the dependencies that did not answer, e.g. `["database"]`; empty when all is well. */
  down: string[];
}

/** Asks each dependency (the store; Redis when configured) for one round trip, all at once. */
export function createHealthService(checks: Record<string, () => Promise<unknown>>) {
  return {
    async check(): Promise<HealthReport> {
      const results = await Promise.all(
        Object.entries(checks).map(async ([name, check]) => {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), HEALTH_CHECK_TIMEOUT_MS);
          });
          try {
            await Promise.race([check(), timeout]);
            return null;
          } catch {
            return name;
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      return { down: results.filter((name): name is string => name !== null) };
    },
  };
}
