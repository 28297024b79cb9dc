/**
 * `npm run bench:delivery`: how fast the delivery worker drains a queue of
 * one-recipient messages to Postfix's smtp-sink, against a bare pooled
 * Nodemailer transport sending the same messages, DKIM-signed the same way, to
 * the same sink. See bench/README.md for the target and the knobs.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { DEFAULT_WORKER_CONCURRENCY, loadConfig } from '../src/config.js';
import { SMTP_POOL_SIZE } from '../src/delivery/smtp-provider.js';
import type { DomainsTable } from '../src/db/schema.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { writeAcceptedSends, type AcceptedSend } from '../src/sending/acceptance/accepted-sends.js';
import { createStore } from '../src/composition/store.js';
import type { Store } from '../src/db/store.js';
import { createLogger, openMigratedDatabase, openSigningKeys, withSecretKey } from '../src/composition/store-runtime.js';
import { startDeliveryWorker, workerStoreOptions } from '../src/composition/worker-runtime.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { createServices } from '../src/composition/services.js';
import { createBenchDatabase } from './bench-database.js';
import { startSink } from './smtp-sink.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_MESSAGES = Number(process.env.BENCH_WARMUP_MESSAGES ?? 2_000);
const CONCURRENCY = process.env.WORKER_CONCURRENCY ?? String(DEFAULT_WORKER_CONCURRENCY);
const TARGET_RATIO = 0.7;
const DOMAIN = 'bench.example';

const content = (i: number) => ({ subject: `Order ${i} confirmed`, text: `Hello,\n\nyour order ${i} is on its way.\n\nThe bench team\n` });

/** Fills the queue as accepted sends would: message, `send` entry and job per message, in batches. */
async function fill(store: Store, workspaceId: string, count: number): Promise<void> {
  const now = nowIso();
  for (let start = 0; start < count; start += 500) {
    const sends: AcceptedSend[] = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const id = newId('msg');
      const to = `user${i}@example.net`;
      const { subject, text } = content(i);
      sends.push({
        message: { id, workspace_id: workspaceId, from_name: 'Bench', from_address: `orders@${DOMAIN}`, reply_to: null, subject, html: null, text, recipients: JSON.stringify([{ name: '', address: to }]), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0, created_at: now },
        entries: [{ id: newId('log'), workspace_id: workspaceId, message_id: id, type: 'send', status: 'sent', recipient: to, from_email: `orders@${DOMAIN}`, subject, error: null, tags: null, created_at: now, updated_at: now }],
        job: { message_id: id, workspace_id: workspaceId, state: 'pending', available_at: now, lease_owner: null, lease_expires_at: null, last_error: null, created_at: now, updated_at: now },
        events: [],
      });
    }
    const results = await writeAcceptedSends(store, sends);
    if (results.some((r) => !r.ok)) throw new Error('could not fill the queue');
  }
}

const pendingJobs = (store: Store) => store.deliveryJobs.countPending();

let acceptedBefore = 0;
async function attemptOutcomes(store: Store): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { outcome, n } of await store.deliveryAttempts.outcomeCounts()) counts.set(outcome, n);
  return counts;
}

/** The worker exactly as `mailroom worker` starts it (provider from the config, builder thread), timed until the queue is empty. */
async function mailroomRound(store: Store, config: ReturnType<typeof loadConfig>, count: number): Promise<number> {
  const started = performance.now();
  const worker = startDeliveryWorker(store, config, await openSigningKeys(store, config));
  while ((await pendingJobs(store)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  // A job is also done when its recipient failed: count what the relay really took.
  const outcomes = await attemptOutcomes(store);
  const accepted = (outcomes.get('accepted') ?? 0) - acceptedBefore;
  if (accepted !== count || outcomes.size !== 1) throw new Error(`the worker's attempts were not all accepted: ${JSON.stringify([...outcomes])}`);
  acceptedBefore += accepted;
  return count / seconds;
}

/**
 * The same messages through one pooled Nodemailer transport, signing with the
 * key as Nodemailer's documentation shows it (the PEM text: parsed per
 * message) or, as Mailroom does, parsed once (a KeyObject).
 */
async function bareRound(port: number, domain: Pick<DomainsTable, 'dkim_selector' | 'dkim_private_key'>, parsedKey: boolean, count: number): Promise<number> {
  const privateKey = parsedKey ? createPrivateKey(domain.dkim_private_key) : domain.dkim_private_key;
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: SMTP_POOL_SIZE,
    host: '127.0.0.1',
    port,
    dkim: { domainName: DOMAIN, keySelector: domain.dkim_selector, privateKey: privateKey as never },
  });
  const started = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId('msg');
    sends.push(
      transport.sendMail({
        envelope: { from: `bounce+${id}@mr-bounces.${DOMAIN}`, to: [`user${i}@example.net`] },
        from: { name: 'Bench', address: `orders@${DOMAIN}` },
        to: `user${i}@example.net`,
        ...content(i),
        messageId: `<${id}@${DOMAIN}>`,
        dsn: { id, return: 'headers', notify: ['success', 'failure', 'delay'] },
      }),
    );
  }
  await Promise.all(sends);
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return count / seconds;
}

async function main(): Promise<void> {
  const sink = await startSink();
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-bench-delivery-'));
  const postgres = process.env.DATABASE_URL ? await createBenchDatabase(process.env.DATABASE_URL) : undefined;
  const smtpUrl = `smtp://127.0.0.1:${sink.port}`;
  const config = loadConfig({
    MAILROOM_DATA_DIR: dataDir,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    MAILROOM_PROVIDER: 'smtp',
    SMTP_URL: smtpUrl,
    WORKER_CONCURRENCY: CONCURRENCY,
    WORKER_POLL_MS: '50',
    LOG_LEVEL: 'silent',
  });
  // The store as the worker opens it (in serve's delivery thread or `mailroom worker`): no fsync per commit.
  const db = await openMigratedDatabase(config, workerStoreOptions(config));
  try {
    const store = createStore(db);
    const { workspace_id: workspaceId } = await createServices(store, config).workspaces.create('Bench');
    const key = await generateDkimKeyPair();
    const domain: DomainsTable = {
      id: newId('dom'), workspace_id: workspaceId, domain: DOMAIN, status: 'verified', dkim_selector: key.selector, dkim_private_key: key.privateKeyPem,
      dkim_public_key: key.publicKeyBase64, return_path_domain: `mr-bounces.${DOMAIN}`, verification_error: null, created_at: nowIso(), verified_at: nowIso(), last_checked_at: nowIso(), upstream_ids: null, open_tracking: 0, click_tracking: 0, tracking_domain: null, tracking_domain_status: null,
    };
    await store.domains.insert(domain);
    // As a start does: the installation's key opened (made, in the data dir), the DKIM key stored in clear above sealed with it.
    const keyedConfig = await withSecretKey(store, config, createLogger(config));
    console.log(`bench: ${MESSAGES} one-recipient messages per round, ${ROUNDS} alternating rounds, DKIM on, smtp-sink on port ${sink.port}`);
    console.log(`bench: store ${postgres ? 'PostgreSQL (a database of its own)' : 'SQLite'}, worker concurrency ${CONCURRENCY}, ${SMTP_POOL_SIZE} SMTP connections each`);

    // Not counted: lets the JIT compile both paths before either is measured.
    await fill(store, workspaceId, WARMUP_MESSAGES);
    await mailroomRound(store, keyedConfig, WARMUP_MESSAGES);
    await bareRound(sink.port, domain, true, WARMUP_MESSAGES);

    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await fill(store, workspaceId, MESSAGES);
      const mailroom = await mailroomRound(store, keyedConfig, MESSAGES);
      const barePem = await bareRound(sink.port, domain, false, MESSAGES);
      const bareParsed = await bareRound(sink.port, domain, true, MESSAGES);
      // Judged against the faster bare variant: Mailroom's own key caching earns it nothing here.
      const bare = Math.max(barePem, bareParsed);
      ratios.push(mailroom / bare);
      console.log(
        `round ${round}: mailroom worker ${mailroom.toFixed(0)} msg/s; bare nodemailer ${barePem.toFixed(0)} msg/s (PEM key), ` +
          `${bareParsed.toFixed(0)} msg/s (parsed key); ratio to the faster ${(100 * (mailroom / bare)).toFixed(1)} %`,
      );
    }
    const median = ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
    console.log(`median ratio ${(100 * median).toFixed(1)} % (target ≥ ${100 * TARGET_RATIO} %): ${median >= TARGET_RATIO ? 'PASS' : 'FAIL'}`);
  } finally {
    await db.destroy();
    sink.proc.kill();
    await rm(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }
}

main().catch((error: unknown) => {
  console.error('bench:', error);
  process.exitCode = 1;
});
