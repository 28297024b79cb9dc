/**
 * `node --import tsx scripts/readme-screenshot.ts [FILE]`: retakes the
 * README's screenshot of the dashboard (docs/images/dashboard.png by default).
 * It starts the built `mailroom serve` on a throw-away data dir and free
 * ports, creates the first admin and workspace through the setup link the log
 * prints, sends some fifty messages through the API's batch route (the
 * sandbox's simulator address bouncing two of them on purpose), waits until
 * the worker has settled them, and photographs the Overview in headless
 * Chromium at 1440 px.
 * Needs `npm run build` first, and Debian's Chromium.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..');
const OUT = process.argv[2] ?? join(ROOT, 'docs', 'images', 'dashboard.png');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FROM = 'Acme <hello@sandbox.mailroom.test>';

/** People, each delivered into the sandbox. */
const PEOPLE: Array<[to: string, subject: string]> = [
  ['Ada Lovelace <ada@example.com>', 'Your receipt for order #1042'],
  ['Grace Hopper <grace@example.org>', 'Welcome to Acme'],
  ['Alan Turing <alan@example.net>', 'Reset your password'],
  ['Katherine Johnson <katherine@example.com>', 'Your order has shipped'],
  ['Edsger Dijkstra <edsger@example.nl>', 'Your receipt for order #1043'],
  ['Barbara Liskov <barbara@example.edu>', 'Confirm your e-mail address'],
  ['Donald Knuth <don@example.org>', 'Your receipt for order #1044'],
  ['Margaret Hamilton <margaret@example.com>', 'Welcome to Acme'],
  ['Linus Torvalds <linus@example.fi>', 'Your order has shipped'],
  ['Radia Perlman <radia@example.com>', 'Reset your password'],
  ['Ken Thompson <ken@example.net>', 'Your receipt for order #1045'],
  ['Frances Allen <frances@example.org>', 'Your trial ends in 3 days'],
  ['John McCarthy <john@example.edu>', 'Welcome to Acme'],
  ['Hedy Lamarr <hedy@example.at>', 'Your order has shipped'],
  ['Tim Berners-Lee <tim@example.co.uk>', 'Confirm your e-mail address'],
  ['Shafi Goldwasser <shafi@example.com>', 'Your receipt for order #1047'],
  ['Leslie Lamport <leslie@example.org>', 'Your invoice for November'],
  ['Sophie Wilson <sophie@example.co.uk>', 'Welcome to Acme'],
  ['Dennis Ritchie <dmr@example.net>', 'Your receipt for order #1048'],
];
/** The people above, twice and then most of them again, and two sends the simulator bounces, as a real list has a few dead addresses. */
const SENDS: Array<[to: string, subject: string]> = [
  ...PEOPLE,
  ['bounce@simulator.mailroom.test', 'Your invoice for November'],
  ...PEOPLE.map(([to, subject]): [string, string] => [to, subject.replace('order #10', 'order #20')]),
  ['bounce@simulator.mailroom.test', 'Your receipt for order #2046'],
  ...PEOPLE.slice(0, 15),
];

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(100);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-screenshot-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const serve = spawn(process.execPath, [join(ROOT, 'bin', 'mailroom.js'), 'serve'], {
  env: { ...process.env, MAILROOM_DATA_DIR: dataDir, PORT: String(port), INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0', MAILROOM_HOSTNAME: 'mail.example.com', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let log = '';
serve.stdout.on('data', (chunk: Buffer) => (log += chunk));
serve.stderr.on('data', (chunk: Buffer) => (log += chunk));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
try {
  const link = await until('the setup link in the log', () => /open (http:\/\/\S+\/setup\?token=\S+) within an hour/.exec(log)?.[1]);
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto(link);
  await page.getByLabel('Your e-mail address').fill('ada@acme.example');
  await page.getByLabel('Password (at least 10 characters)').fill('correct horse battery staple');
  await page.getByLabel('Workspace name').fill('Acme');
  await page.getByRole('button', { name: 'Create account and workspace' }).click();
  await page.getByRole('heading', { name: "The workspace's first API key" }).waitFor();
  const apiKey = (await page.locator('code.secret').first().textContent())!.trim();

  // One request of the key's send budget (30 a minute), however many items.
  const res = await fetch(`${base}/v1/send/batch`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(SENDS.map(([to, subject]) => ({ from_email: FROM, to: [to], subject, html: `<p>${subject}.</p>`, tags: [{ name: 'kind', value: 'transactional' }] }))),
  });
  if (res.status !== 200) throw new Error(`the batch: ${res.status} ${await res.text()}`);
  // Every recipient settled: delivered, or bounced.
  await until('the worker to settle every send', async () => {
    const { data } = (await (await fetch(`${base}/v1/send/stats`, { headers: { 'x-api-key': apiKey } })).json()) as { data: Record<string, number> };
    return data.delivered! + data.bounced! === SENDS.length ? data : undefined;
  });

  // A new visit: the key, shown once, is gone; the Overview reads the settled figures.
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: OUT, fullPage: true });
  console.log(`${OUT}: ${Math.round(statSync(OUT).size / 1024)} KB`);
} catch (error) {
  console.error(log);
  throw error;
} finally {
  await browser.close();
  serve.kill('SIGTERM');
  await once(serve, 'exit');
  rmSync(dataDir, { recursive: true, force: true });
}
