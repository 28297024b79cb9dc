/**
 * `npm run bench:attachments`: memory of 10 concurrent sends of 40 MB of
 * attachments each (issue 16, point 2), against `mailroom serve` started as
 * `npm start` starts it (node --import tsx src/cli.ts serve), worker on,
 * sandbox provider, rate limits out of the way, on the store of
 * bench/send-bench-store.ts (SQLite; PostgreSQL with DATABASE_URL). It waits
 * until every message is delivered (built with its attachments, DKIM-signed,
 * kept by the sandbox), then prints the server's peak resident memory
 * (VmHWM from /proc/<pid>/status: the kernel's own high-water mark, so no
 * sampling can miss a peak) and the time taken. Target: < 1.5 GB.
 * See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openSendBenchStore } from './send-bench-store.js';
import { BenchError, freePort, HOST, positiveNumber, READY_TIMEOUT_MS, runBench, startChild, stopChild, waitReady } from './bench-process.js';

const SENDS = positiveNumber('BENCH_SENDS', 10);
const MiB = 1024 * 1024;
/** The most a send may carry (MAX_ATTACHMENT_BYTES): 40 MB after decoding. */
const BYTES_PER_SEND = 40 * MiB;
const TARGET_BYTES = 1.5 * 1024 * MiB;
/** A directory: the server runs with --cpu-prof and writes one profile per thread there. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const DELIVERY_TIMEOUT_MS = positiveNumber('BENCH_DELIVERY_TIMEOUT_S', 300) * 1000;

/** kB figures of /proc/<pid>/status, as bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

/**
 * Each send: one 36 MiB file shared by all (random, so nothing compresses it
 * anywhere), plus a 4 MiB file of its own and an inline 1 KiB image, exactly
 * 40 MiB in all. Bodies are built as Buffers, once, before the server starts.
 */
function requestBodies(): Buffer[] {
  const shared = randomBytes(36 * MiB).toString('base64');
  return Array.from({ length: SENDS }, (_, i) =>
    Buffer.from(
      JSON.stringify({
        from_email: 'Bench <bench@sandbox.mailroom.test>',
        to: [`user${i}@example.com`],
        subject: `Attachments ${i}`,
        html: '<p>The files, and our logo: <img src="cid:logo"></p>',
        attachments: [
          { filename: 'archive.zip', content: shared },
          { filename: `report-${i}.pdf`, content: randomBytes(4 * MiB - 1024).toString('base64') },
          { filename: 'logo.png', content: randomBytes(1024).toString('base64'), content_id: 'logo' },
        ],
      }),
    ),
  );
}

async function main(): Promise<number> {
  const bench = await openSendBenchStore();
  try {
    const { env, apiKey, storeName } = bench;
    console.log(`bench: store ${storeName}, ${bench.where}`);
    const bodies = requestBodies();
    console.log(`bench: ${SENDS} request bodies of ${mb(bodies[0]!.length)} each (${mb(BYTES_PER_SEND)} of attachments after decoding)`);

    const port = await freePort();
    // As `npm start` runs it: node --import tsx src/cli.ts serve.
    const child = startChild('mailroom serve', [...(CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []), '--import', 'tsx', 'src/cli.ts', 'serve'], { ...process.env, ...env, HOST, PORT: String(port) });
    const base = `http://${HOST}:${port}`;
    const pid = child.proc.pid!;
    try {
      await waitReady(child, base);
      const idle = memoryOf(pid);
      console.log(`bench: server pid ${pid} ready, RSS ${mb(idle.rss)} (peak so far ${mb(idle.hwm)})`);

      const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
      let sampledPeak = 0;
      const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memoryOf(pid).rss)), 50);
      const started = performance.now();
      const answers = await Promise.all(
        bodies.map(async (body) => {
          const res = await fetch(`${base}/v1/send`, { method: 'POST', headers, body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), signal: AbortSignal.timeout(120_000) });
          const text = await res.text();
          const parsed = JSON.parse(text) as { data?: { message_id?: string; status?: string } };
          if (res.status !== 200 || parsed.data?.status !== 'sent') throw new BenchError(`POST /v1/send answered HTTP ${res.status} ${text.slice(0, 300)}`);
          return parsed.data.message_id!;
        }),
      );
      const acceptedMs = performance.now() - started;
      bodies.length = 0;
      const whileAccepting = memoryOf(pid).hwm;
      console.log(`bench: ${SENDS} sends accepted in ${(acceptedMs / 1000).toFixed(2)} s, peak RSS so far ${mb(whileAccepting)}`);

      // Delivered: every message built with its attachments, signed and kept by the sandbox.
      const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
      const pending = new Set(answers);
      while (pending.size > 0) {
        if (Date.now() > deadline) throw new BenchError(`${pending.size} messages not delivered within ${DELIVERY_TIMEOUT_MS / 1000} s`);
        for (const id of [...pending]) {
          const res = await fetch(`${base}/v1/messages/${id}`, { headers: { 'x-api-key': apiKey } });
          const detail = ((await res.json()) as { data: { recipients: { status: string }[]; attachments: unknown[]; size_bytes: number | null } }).data;
          const status = detail.recipients[0]?.status;
          if (status !== 'sent' && status !== undefined) {
            if (status !== 'delivered') throw new BenchError(`message ${id} ended ${status}`);
            if (detail.attachments.length !== 3 || (detail.size_bytes ?? 0) < BYTES_PER_SEND) throw new BenchError(`message ${id} was built without its attachments`);
            pending.delete(id);
          }
        }
        if (pending.size > 0) await new Promise((r) => setTimeout(r, 200));
      }
      const deliveredMs = performance.now() - started;
      clearInterval(sampler);
      const end = memoryOf(pid);

      console.log(`\n${SENDS} concurrent POST /v1/send, ${mb(BYTES_PER_SEND)} of attachments each, worker on, sandbox provider, Node ${process.version}, store: ${storeName}`);
      console.log(`accepted (all ${SENDS} answered 200): ${(acceptedMs / 1000).toFixed(2)} s`);
      console.log(`delivered (all built, signed, kept): ${(deliveredMs / 1000).toFixed(2)} s`);
      console.log(`server RSS: idle ${mb(idle.rss)}, peak sampled every 50 ms ${mb(sampledPeak)}, at the end ${mb(end.rss)}`);
      console.log(`server peak RSS (VmHWM): ${mb(end.hwm)} = ${(end.hwm / 1024 ** 3).toFixed(2)} GiB (${mb(whileAccepting)} by the time all were accepted)`);
      const pass = end.hwm < TARGET_BYTES;
      console.log(`\ntarget: peak RSS < 1.5 GB (${mb(TARGET_BYTES)}): ${mb(end.hwm)} ${pass ? 'PASS' : 'FAIL'}`);
      return 0;
    } finally {
      await stopChild(child);
    }
  } finally {
    await bench.close();
  }
}

// Bounded no matter what hangs: start-up, a stuck connection, a child ignoring SIGTERM.
runBench(main, READY_TIMEOUT_MS + DELIVERY_TIMEOUT_MS + 180_000);
