// temporary profiling harness (not committed)
import autocannon from 'autocannon';
import { rmSync, mkdirSync } from 'node:fs';
import { openSendBenchStore } from './send-bench-store.js';
import { freePort, HOST, startChild, stopChild, waitReady } from './bench-process.js';
const dir = process.env.PROF_DIR ?? '/tmp/m/prof';
rmSync(dir, { recursive: true, force: true }); mkdirSync(dir);
const store = await openSendBenchStore({ WORKER_ENABLED: process.env.WORKER ?? 'false' });
const port = await freePort();
const child = startChild('prof', ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'bin/mailroom.js', 'serve'], { ...process.env, ...store.env, HOST, PORT: String(port) });
const base = `http://${HOST}:${port}`;
await waitReady(child, base);
const headers = { 'x-api-key': store.apiKey, 'content-type': 'application/json' };
const body = JSON.stringify({ to: ['user@example.com'], from_email: 'Bench <bench@sandbox.mailroom.test>', subject: 'Hello', text: 'Hi there' });
await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body, connections: 50, duration: 3 });
const r = await autocannon({ url: `${base}/v1/send`, method: 'POST', headers, body, connections: 50, duration: 10 });
console.log('req/s', r.requests.average, 'p99', r.latency.p99);
await stopChild(child);
await store.close();
