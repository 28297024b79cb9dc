/** GET …/engagement: opens and clicks over the period (docs/tracking.md's statistics). */
export interface Engagement {
  /** People's opens and clicks, every time (Gmail's proxied opens are people's). */
  opened: number;
  clicked: number;
  /** Recipients whose first open, or click, by a person fell in the period. */
  unique_opened: number;
  unique_clicked: number;
  machine_opened: number;
  machine_clicked: number;
  /** Recipients handed over with open, or click, tracking on: what the rates are of. */
  tracked_opens: number;
  tracked_clicks: number;
}

export interface EngagementRate {
  /** unique ÷ tracked, or null when nothing was tracked. */
  rate: number | null;
  unique: number;
  tracked: number;
  /** Left out of the rate: what machines did. */
  machine: number;
}

/**
 * Rates of tracked mail only, unique ones by people: mail sent without
 * tracking can be neither opened nor clicked as far as Mailroom knows, and a
 * machine's open (Apple's prefetch of every image) says nothing of a reader.
 */
export function engagementRates(e: Engagement): { open: EngagementRate; click: EngagementRate } {
  const of = (unique: number, tracked: number, machine: number): EngagementRate => ({ rate: tracked > 0 ? unique / tracked : null, unique, tracked, machine });
  return { open: of(e.unique_opened, e.tracked_opens, e.machine_opened), click: of(e.unique_clicked, e.tracked_clicks, e.machine_clicked) };
}

/** One decimal: an open rate is read as "about 42 %", not to the basis point as SES's review rates are. */
export function formatShare(rate: number): string {
  if (rate > 0 && rate < 0.001) return '< 0.1%';
  return `${(rate * 100).toFixed(1)}%`;
}
