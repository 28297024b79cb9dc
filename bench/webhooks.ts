/**
 * `npm run bench:webhooks`: 10,000 events fanned out to one local receiver;
 * prints deliveries/s and the time from each event to its receipt (p50, p99).
 * The dispatcher is the one `serve` runs (startWebhookDispatcher); the
 * receiver is a child process, so it does not share the dispatcher's event
 * loop. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { publishEvents } from '../src/events/event-path.js';
import type { MessageEvent } from '../src/events/message-event.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { createStore } from '../src/composition/store.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { startWebhookDispatcher, workerStoreOptions } from '../src/composition/worker-runtime.js';
import { createServices } from '../src/composition/services.js';
import { createBenchDatabase } from './bench-database.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const BATCH = 100;
const TARGET_PER_SECOND = 2_000;

/** The receiver: answers 200 at once, notes when each event arrived, reports on stdin's end. */
const RECEIVER = `
  import { createServer } from 'node:http';
  const arrivals = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end('ok');
      const body = JSON.parse(Buffer.concat(chunks).toString());
      arrivals.push([body.id, Date.parse(body.timestamp), at]);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
  process.stdin.on('data', () => console.log(JSON.stringify({ arrivals })));
  process.stdin.resume();
`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const receiver = spawn(process.execPath, ['--input-type=module', '-e', RECEIVER], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = async () => {
    while (!output.includes('\n')) await once(receiver.stdout!, 'data');
    const [line, ...rest] = output.split('\n');
    output = rest.join('\n');
    return JSON.parse(line!);
  };
  // Killed however the run ends: a receiver left running would keep this process alive after a failed start.
  try {
    await measure(lines, () => receiver.stdin!.write('report\n'));
  } finally {
    receiver.kill();
  }
}

/** `lines` reads the receiver's next line of JSON; `askReport` has it print what arrived. */
async function measure(lines: () => Promise<ReturnType<typeof JSON.parse>>, askReport: () => void): Promise<void> {
  const { port } = await lines();
  // The database first: when it cannot be made, there is no directory to remove yet.
  const postgres = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-bench-webhooks-'));
  const config = loadConfig({
    MAILROOM_DATA_DIR: dataDir,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WORKER_POLL_MS: '50',
    LOG_LEVEL: 'silent',
  });
  // The store as the worker opens it, which publishes the events and runs the dispatcher in serve.
  const db = await openMigratedDatabase(config, workerStoreOptions(config));
  try {
    const store = createStore(db);
    const services = createServices(store, config);
    const { workspace_id: workspaceId } = await services.workspaces.create('Bench');
    await services.webhooks.create(workspaceId, { url: `http://127.0.0.1:${port}/hooks` });
    console.log(`bench: ${EVENTS} events to one endpoint on loopback, store ${postgres ? 'PostgreSQL' : 'SQLite'}`);

    const dispatcher = startWebhookDispatcher(store, config);
    const started = Date.now();
    for (let i = 0; i < EVENTS; i += BATCH) {
      const now = nowIso();
      const events: MessageEvent[] = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, j) => ({
        id: newId('evt'), type: 'delivered', workspace_id: workspaceId, message_id: newId('msg'), recipient: `user${i + j}@example.com`,
        from_email: 'bench@example.com', subject: 'Bench', tags: null, timestamp: now,
      }));
      await store.transaction((repos) => publishEvents(repos, events));
      dispatcher.wake();
    }
    const produced = Date.now();
    // Every 250 ms: each look counts the whole table, work the store would otherwise give the dispatcher. The rate is
    // judged by the receiver's last arrival, not by this.
    while (((await store.webhookDeliveries.countByState()).delivered ?? 0) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 250));
    await dispatcher.stop();

    askReport();
    const { arrivals } = (await lines()) as { arrivals: [string, number, number][] };
    const unique = new Set(arrivals.map(([id]) => id));
    const last = Math.max(...arrivals.map(([, , at]) => at));
    const latencies = arrivals.map(([, event, at]) => at - event).sort((a, b) => a - b);
    const rate = arrivals.length / ((last - started) / 1000);
    console.log(`produced ${EVENTS} events in ${produced - started} ms; ${arrivals.length} posts received (${unique.size} distinct events)`);
    console.log(`deliveries/s: ${rate.toFixed(0)} (target ≥ ${TARGET_PER_SECOND}): ${rate >= TARGET_PER_SECOND ? 'PASS' : 'FAIL'}`);
    console.log(`event → receipt: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`);
  } finally {
    await db.destroy();
    await rm(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }
}

main().catch((error: unknown) => {
  console.error('bench:', error);
  process.exitCode = 1;
});
