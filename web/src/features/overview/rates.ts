import type { Stats } from './stats';

/**
 * Amazon SES puts an account under review at a 5 % bounce rate or a 0.1 %
 * complaint rate, "or greater": the warning shows from those values on, so
 * it comes no later than SES's own review would.
 */
export const BOUNCE_REVIEW_RATE = 0.05;
export const COMPLAINT_REVIEW_RATE = 0.001;

export interface Rates {
  /**
   * Recipients handed on for delivery: SES's "sends". Suppressed and failed
   * recipients never reached a provider (SPEC.md §3.1), so no mailbox could
   * bounce them or complain; counting them would thin both rates exactly
   * when a misconfiguration fails many sends.
   */
  handedOn: number;
  /** bounced ÷ handedOn, or null when nothing was handed on. */
  bounce: number | null;
  /** complained ÷ handedOn, or null when nothing was handed on. */
  complaint: number | null;
}

export function ratesOf(stats: Stats): Rates {
  const handedOn = Math.max(0, stats.total_sent - stats.suppressed - stats.failed);
  return {
    handedOn,
    bounce: handedOn > 0 ? stats.bounced / handedOn : null,
    complaint: handedOn > 0 ? stats.complained / handedOn : null,
  };
}

/** Two decimals, as SES's console shows them; a rate too small for them is not shown as a reassuring 0.00 %. */
export function formatRate(rate: number | null): string {
  if (rate === null) return '–';
  if (rate > 0 && rate < 0.0001) return '< 0.01%';
  return `${(rate * 100).toFixed(2)}%`;
}
