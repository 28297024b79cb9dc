import { bounceSubtypeOf, HARD_BOUNCE_SUBTYPES } from './bounce-reasons.js';
import { classifyFinding } from './bounce-classifier.js';
import { emptyFinding } from './types.js';

export { bounceSubtypeOf, HARD_BOUNCE_SUBTYPES };

/** The subtype of a bounce the parser already judged (a returned DSN), from its status and diagnostic. */
export function reportedBounceSubtype(status: string | null, diagnostic: string | null, hard: boolean): string {
  const { reason } = classifyFinding({ ...emptyFinding(null), action: 'failed', status, diagnostic });
  return bounceSubtypeOf(reason, hard);
}
