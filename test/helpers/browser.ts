/**
 * Debian's Chromium driven by playwright-core, as the dashboard's browser
 * tests use it: headless, the flags that keep it off the closed network, a
 * fresh profile per launch (playwright's own temporary one), every console
 * error and page error kept, axe-core run on demand, and screenshots at 1440
 * and 390 pixels wide into MAILROOM_SCREENSHOTS when it is set.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** axe-core's source, run in the page (through the DevTools protocol, which the page's CSP does not govern). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface TestBrowser {
  browser: Browser;
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  problems: string[];
  /** Serious and critical axe-core violations of every page audited, as `page: rule (impact, nodes)`. */
  inaccessible: string[];
  /** A page in a context of its own (another person, another session), with its problems kept too. */
  newPage(): Promise<Page>;
  /** axe-core on the page as it stands. */
  audit(name: string, on?: Page): Promise<void>;
  /** audit, then screenshots at 1440 and 390 pixels wide when MAILROOM_SCREENSHOTS is set. */
  shoot(name: string, on?: Page): Promise<void>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const problems: string[] = [];
  const inaccessible: string[] = [];
  // A context of its own per page (its own cookies), which can open more pages sharing them.
  const newPage = async () => {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    return page;
  };
  const page = await newPage();

  async function audit(name: string, on = page) {
    await on.evaluate(AXE);
    const { checked, violations } = await on.evaluate(async () => {
      type Rule = { id: string; impact: string; nodes: unknown[] };
      const result = await (window as unknown as { axe: { run(): Promise<{ passes: Rule[]; violations: Rule[] }> } }).axe.run();
      return {
        checked: result.passes.length,
        violations: result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`),
      };
    });
    assert.ok(checked > 10, `axe-core ran its rules on ${name} (${checked} passed)`);
    inaccessible.push(...violations.map((v) => `${name}: ${v}`));
  }

  async function shoot(name: string, on = page) {
    await audit(name, on);
    const dir = process.env.MAILROOM_SCREENSHOTS;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const viewport = on.viewportSize();
    for (const width of [1440, 390]) {
      await on.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      // A frame of another process (a sandboxed one) below the fold is painted at its new size only once shown.
      for (const frame of await on.locator('iframe').all()) await frame.screenshot();
      await on.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
    }
    if (viewport) await on.setViewportSize(viewport);
  }

  return { browser, page, problems, inaccessible, newPage, audit, shoot, close: () => browser.close() };
}

/**
 * The browser's problems less the error answers a test provoked on purpose
 * (Chromium logs "the server responded with a status of N" for each).
 */
export function unexpectedProblems(problems: string[], provoked: number[]): string[] {
  if (provoked.length === 0) return problems;
  const expected = new RegExp(`the server responded with a status of (${provoked.join('|')})\\b`);
  return problems.filter((p) => !expected.test(p));
}
