/**
 * What bench:dashboard measures in the page, each time read by the page's
 * own clock (performance.now(), from the navigation's start or from the
 * select's change event) in the animation frame where the condition first
 * holds: what is timed is what the user sees, without the round trips of the
 * DevTools protocol that drives the browser.
 */
import type { Page } from 'playwright-core';

const TIMEOUT_MS = 30_000;
const ROWS = 'table.logs tbody tr';

/** When things happened on the way to a ready Overview, in ms from the navigation's start. */
export interface OverviewMarks {
  ready: number;
  /** The frame in which the six figures first showed numbers. */
  figures: number;
  /** When each response's last byte arrived (Resource Timing): the page, the session, the statistics, the series, the chart's chunk. */
  html: number;
  session: number;
  stats: number;
  series: number;
  chartChunk: number;
}

/** Navigation start → the six figures show numbers, the rates are there and the chart has its canvas. */
export async function overviewReady(page: Page, url: string): Promise<OverviewMarks> {
  await page.goto(url, { waitUntil: 'commit' });
  const ready = await page.waitForFunction(
    () => {
      const mark = window as unknown as { figuresAt?: number };
      const values = [...document.querySelectorAll('.figure-value')];
      if (mark.figuresAt === undefined && values.length === 6 && values.every((v) => v.textContent !== '…')) mark.figuresAt = performance.now();
      if (mark.figuresAt === undefined || !document.querySelector('.rate-value') || !document.querySelector('.chart-plot canvas')) return false;
      // No named functions in here: tsx's keepNames would wrap them in a helper the page does not have.
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const [session, stats, series, chartChunk] = [/\/dashboard\/api\/session$/, /\/stats\?/, /\/stats\/timeseries\?/, /\/assets\/SeriesChart-[^/]*\.js$/].map(
        (pattern) => resources.find((e) => pattern.test(e.name))?.responseEnd ?? -1,
      );
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { ready: performance.now(), figures: mark.figuresAt, html: navigation.responseEnd, session: session!, stats: stats!, series: series!, chartChunk: chartChunk! };
    },
    undefined,
    { polling: 'raf', timeout: TIMEOUT_MS },
  );
  return (await ready.jsonValue()) as OverviewMarks;
}

/** Navigation start → the first page of log entries is in the table. */
export async function logsReady(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const ready = await page.waitForFunction((rows) => (document.querySelectorAll(rows).length > 0 ? performance.now() : false), ROWS, { polling: 'raf', timeout: TIMEOUT_MS });
  return (await ready.jsonValue()) as number;
}

/** The Status select changed → every row shown has that status (and the rows are not the ones shown before). */
export async function filterApplied(page: Page, status: string): Promise<number> {
  const before = await page.locator(ROWS).first().textContent();
  await page.evaluate(() => {
    const mark = window as unknown as { changedAt?: number };
    delete mark.changedAt;
    document.addEventListener('change', () => void (mark.changedAt = performance.now()), { capture: true, once: true });
  });
  await page.getByRole('combobox', { name: 'Status' }).selectOption(status);
  const shown = await page.waitForFunction(
    ({ rows, status, before }) => {
      const changedAt = (window as unknown as { changedAt?: number }).changedAt;
      const all = [...document.querySelectorAll(rows)];
      const fresh = all.length > 0 && all[0]!.textContent !== before && all.every((row) => row.querySelector('td[data-label="Status"]')?.textContent?.includes(status));
      return changedAt !== undefined && fresh ? performance.now() - changedAt : false;
    },
    { rows: ROWS, status, before },
    { polling: 'raf', timeout: TIMEOUT_MS },
  );
  return (await shown.jsonValue()) as number;
}

/** Each /dashboard/api path (ids and query left out), with how long Chromium waited for each answer. */
export type Timings = Map<string, number[]>;

export function apiTimings(page: Page): Timings {
  const timings: Timings = new Map();
  page.on('requestfinished', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/dashboard/api/')) return;
    const path = url.pathname.replace(/\/ws_[a-z0-9]+/, '/:ws') + (url.searchParams.has('status') ? '?status=…' : url.searchParams.has('interval') ? `?interval=${url.searchParams.get('interval')}` : '');
    const { requestStart, responseEnd } = request.timing();
    if (requestStart < 0 || responseEnd < 0) return;
    timings.set(path, [...(timings.get(path) ?? []), responseEnd - requestStart]);
  });
  return timings;
}
