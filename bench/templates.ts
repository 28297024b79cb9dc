/**
 * `npm run bench:templates`: messages/s accepted through POST /v1/send/batch
 * when each of a batch's 100 sends names a 10 KB template with 10 variables,
 * against the same batch with the body given inline (what the template
 * renders to, so both store the same bytes), on one real `mailroom serve`
 * (bin/mailroom.js) as users run it, the delivery worker on. Rounds alternate
 * inline and template; each figure is its rounds' median, and the ratio is
 * judged against the target, ≥ 80 %. See bench/README.md.
 */
import autocannon from 'autocannon';
import { openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';

const DURATION_S = positiveNumber('BENCH_DURATION', 5);
const WARMUP_S = positiveNumber('BENCH_WARMUP', 2, true);
const ROUNDS = positiveNumber('BENCH_ROUNDS', 3);
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 8);
const BATCH_SIZE = 100;
const TARGET_RATIO = 0.8;
const FROM = 'Orbit Store <orders@sandbox.mailroom.test>';

const VARIABLES = [
  { key: 'first_name', type: 'string' },
  { key: 'last_name', type: 'string' },
  { key: 'order_number', type: 'number' },
  { key: 'order_date', type: 'string' },
  { key: 'item_count', type: 'number' },
  { key: 'total', type: 'string' },
  { key: 'carrier', type: 'string' },
  { key: 'tracking_url', type: 'string' },
  { key: 'address_html', type: 'string' },
  { key: 'support_email', type: 'string', fallback_value: 'help@orbit.example' },
] as const;

/** A realistic order confirmation: an inline-styled table of lines, about 10 KB, naming each variable, some raw. */
function templateHtml(): string {
  const line = (n: number) =>
    `<tr><td style="padding:8px 12px;border-bottom:1px solid #e5e7eb;font:14px/20px Helvetica,Arial,sans-serif;color:#111827">Item ${n}: Refurbished ThinkPad X1 Carbon Gen 11, 32 GB, 1 TB SSD</td><td align="right" style="padding:8px 12px;border-bottom:1px solid #e5e7eb;font:14px/20px Helvetica,Arial,sans-serif;color:#111827">1 &times; $1,249.00</td></tr>\n`;
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>Order {{order_number}}</title></head>',
    '<body style="margin:0;padding:0;background:#f3f4f6"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6"><tr><td align="center" style="padding:24px">',
    '<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="background:#ffffff;border-radius:8px">',
    '<tr><td colspan="2" style="padding:24px 12px;font:bold 22px/28px Helvetica,Arial,sans-serif;color:#111827">Thanks for your order, {{first_name}} {{last_name}}!</td></tr>',
    '<tr><td colspan="2" style="padding:0 12px 16px;font:14px/20px Helvetica,Arial,sans-serif;color:#4b5563">Order #{{order_number}}, placed {{order_date}}: {{item_count}} items, {{total}} in all.</td></tr>',
    Array.from({ length: 25 }, (_, i) => line(i + 1)).join(''),
    '<tr><td colspan="2" style="padding:16px 12px;font:14px/20px Helvetica,Arial,sans-serif;color:#111827">Shipping to:<br>{{{address_html}}}</td></tr>',
    '<tr><td colspan="2" style="padding:16px 12px;font:14px/20px Helvetica,Arial,sans-serif"><a href="{{tracking_url}}" style="color:#2563eb">Track it with {{carrier}}</a></td></tr>',
    '<tr><td colspan="2" style="padding:16px 12px 24px;font:12px/18px Helvetica,Arial,sans-serif;color:#6b7280">Questions? Write to {{support_email}}.</td></tr>',
    '</table></td></tr></table></body></html>',
  ].join('\n');
}

const TEXT = 'Thanks for your order, {{first_name}} {{last_name}}!\nOrder #{{order_number}}, placed {{order_date}}: {{item_count}} items, {{total}}.\nTrack it with {{carrier}}: {{tracking_url}}\nQuestions? {{support_email}}';
const SUBJECT = 'Order #{{order_number}} confirmed, {{first_name}}';

const valuesOf = (i: number) => ({
  first_name: `Customer${i}`,
  last_name: `Lovelace-${i}`,
  order_number: 100_000 + i,
  order_date: '3 December 2026',
  item_count: 25,
  total: `$${(27_478 + i).toLocaleString('en-US')}.00`,
  carrier: 'DHL Express',
  tracking_url: `https://track.orbit.example/parcels/JD0146${String(i).padStart(6, '0')}`,
  address_html: `Ada Lovelace-${i}<br>12 St James's Square<br>London SW1Y 4JH`,
});

/**
 * The two batches: the same recipients and values, named by the template, or as the template renders them
 * (asked of the server's preview, which renders as a send does), so both store the same bytes.
 */
async function batches(base: string, headers: Record<string, string>, templateId: string): Promise<{ inline: string; template: string }> {
  const items = Array.from({ length: BATCH_SIZE }, (_, i) => ({ to: [`customer${i}@example.com`], values: valuesOf(i) }));
  const inline = [];
  for (const { to, values } of items) {
    const rendered = await call(base, headers, 'POST', `/v1/templates/${templateId}/render`, { variables: values });
    if (rendered.status !== 200) throw new BenchError(`rendering the template: HTTP ${rendered.status} ${JSON.stringify(rendered.data)}`);
    inline.push({ to, from_email: FROM, subject: rendered.data.subject, html: rendered.data.html, text: rendered.data.text });
  }
  return { inline: JSON.stringify(inline), template: JSON.stringify(items.map(({ to, values }) => ({ to, template: { id: templateId, variables: values } }))) };
}

interface Round {
  kind: 'inline' | 'template';
  messagesPerS: number;
  p99: number;
  failures: number;
}

async function call(base: string, headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<{ status: number; data: any }> {
  const sent = body === undefined ? { 'x-api-key': headers['x-api-key']! } : headers;
  const res = await fetch(`${base}${path}`, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const json = (await res.json()) as { data: unknown };
  return { status: res.status, data: json.data };
}

/** One batch of each by hand first: a benchmark of 400s, or of templates rendered wrong, would measure the wrong thing. */
async function checkBatches(base: string, headers: Record<string, string>, bodies: { inline: string; template: string }): Promise<void> {
  const results: Record<string, { message_id: string; status: string }[]> = {};
  for (const kind of ['inline', 'template'] as const) {
    const res = await fetch(`${base}/v1/send/batch`, { method: 'POST', headers, body: bodies[kind], signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    const data = (JSON.parse(text) as { data?: { message_id: string; status: string }[] }).data;
    if (res.status !== 200 || data?.length !== BATCH_SIZE || data.some((r) => r.status !== 'sent')) throw new BenchError(`${kind} batch: HTTP ${res.status} ${text.slice(0, 500)}`);
    results[kind] = data;
  }
  const [inline, templated] = await Promise.all([results.inline![7]!, results.template![7]!].map((r) => call(base, headers, 'GET', `/v1/messages/${r.message_id}/content`)));
  const [inlineDetail, templatedDetail] = await Promise.all([results.inline![7]!, results.template![7]!].map((r) => call(base, headers, 'GET', `/v1/messages/${r.message_id}`)));
  if (templatedDetail!.data.subject !== 'Order #100007 confirmed, Customer7' || inlineDetail!.data.subject !== templatedDetail!.data.subject) throw new BenchError(`the subjects differ: ${inlineDetail!.data.subject} / ${templatedDetail!.data.subject}`);
  if (inline!.data.html !== templated!.data.html || inline!.data.text !== templated!.data.text) throw new BenchError('the inline batch does not hold what the template renders to');
}

async function round(kind: Round['kind'], url: string, headers: Record<string, string>, body: string, duration: number): Promise<Round> {
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration });
  const ok = result.requests.total - result.non2xx;
  return { kind, messagesPerS: (ok * BATCH_SIZE) / duration, p99: result.latency.p99, failures: result.non2xx + result.errors + result.timeouts };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<number> {
  const bench = await openSendBenchStore();
  const port = await freePort();
  const child = startChild('as deployed (worker on)', ['bin/mailroom.js', 'serve'], { ...process.env, ...bench.env, HOST, PORT: String(port) });
  const base = `http://${HOST}:${port}`;
  const headers = { 'x-api-key': bench.apiKey, 'content-type': 'application/json' };
  try {
    console.log(`bench: store ${bench.storeName}, ${bench.where}`);
    await waitReady(child, base);
    const created = await call(base, headers, 'POST', '/v1/templates', { name: 'Order confirmation', alias: 'order-confirmation', subject: SUBJECT, html: templateHtml(), text: TEXT, from: FROM, variables: VARIABLES });
    if (created.status !== 201) throw new BenchError(`creating the template: HTTP ${created.status} ${JSON.stringify(created.data)}`);
    const published = await call(base, headers, 'POST', '/v1/templates/order-confirmation/publish');
    if (published.data?.status !== 'published') throw new BenchError(`publishing the template: HTTP ${published.status} ${JSON.stringify(published.data)}`);
    const bodies = await batches(base, headers, created.data.id);
    await checkBatches(base, headers, bodies);
    const url = `${base}/v1/send/batch`;
    if (WARMUP_S > 0) {
      console.log(`  warm-up ${WARMUP_S} s each (not counted)`);
      for (const kind of ['inline', 'template'] as const) await round(kind, url, headers, bodies[kind], WARMUP_S);
    }
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const kind of ['inline', 'template'] as const) {
        const r = await round(kind, url, headers, bodies[kind], DURATION_S);
        console.log(`  round ${i + 1} ${kind.padEnd(8)} ${r.messagesPerS.toFixed(0).padStart(6)} messages/s  p99 ${r.p99} ms`);
        rounds.push(r);
      }
    }
    const inline = median(rounds.filter((r) => r.kind === 'inline').map((r) => r.messagesPerS));
    const templated = median(rounds.filter((r) => r.kind === 'template').map((r) => r.messagesPerS));
    const ratio = templated / inline;
    console.log(
      `\nPOST /v1/send/batch, ${BATCH_SIZE} one-recipient sends per request, a ${(Buffer.byteLength(templateHtml()) / 1024).toFixed(1)} KB template with ${VARIABLES.length} variables: ` +
        `as deployed (worker on), ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION_S} s, Node ${process.version}, store: ${bench.storeName}`,
    );
    console.log(`inline body (median)  ${inline.toFixed(0).padStart(6)} messages/s`);
    console.log(`template (median)     ${templated.toFixed(0).padStart(6)} messages/s`);
    console.log(`\ntarget: template ≥ ${TARGET_RATIO * 100} % of inline: ${(ratio * 100).toFixed(1)} % ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`);
    if (rounds.some((r) => r.failures > 0)) throw new BenchError('some requests were not answered 2xx');
    return 0;
  } finally {
    await stopChild(child);
    await bench.close();
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, (2 * WARMUP_S + 2 * ROUNDS * DURATION_S) * 1000 * 2 + READY_TIMEOUT_MS + 60_000);
