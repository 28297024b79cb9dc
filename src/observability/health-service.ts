/** A health check gives up on a dependency that has not answered within this. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export interface HealthReport {
  /** Names of the dependencies that did not answer, e.g. `["database"]`; empty when all is well. */
  down: string[];
  /** Why, for the checks that can say so to anyone who asks (NotReadyError): by name. */
  reasons: Record<string, string>;
}

/** A check's failure whose message is for the operator's eyes, and safe to answer unauthenticated (no secret in it). */
export class NotReadyError extends Error {}

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
          } catch (error) {
            return { name, reason: error instanceof NotReadyError ? error.message : undefined };
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      const failed = results.filter((r) => r !== null);
      return { down: failed.map((r) => r.name), reasons: Object.fromEntries(failed.filter((r) => r.reason !== undefined).map((r) => [r.name, r.reason!])) };
    },
  };
}
