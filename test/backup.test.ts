import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { BIN, mailroomCommand, startServe, type ServeProcess } from './helpers/serve-process.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { verifyDkim } from './helpers/verified-domain.js';
import { waitFor } from './helpers/wait-for.js';

const run = promisify(execFile);
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** The API of a running `mailroom serve`, with a key. */
function api(serve: ServeProcess, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${serve.base}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { data: any }, total: res.headers.get('x-total-count') };
  };
}

const send = (from: string, subject: string) => ({ to: ['reader@example.com'], from_email: from, subject, text: `Body of ${subject}` });

describe('mailroom backup', () => {
  // The embedded store, whichever store this run exercises: backup is about the SQLite file (its processes are spawned).
  let store: FreshStore;
  let dns: TestDnsServer;
  before(async () => {
    store = await migratedStore('sqlite');
    dns = await startDnsServer();
  });
  after(async () => {
    await dns.close();
    await store.drop();
  });

  it('copies the store while it serves, and the copy restored into a new data dir serves the same data and signs with the same DKIM key', async () => {
    // The test polls the log until a message is delivered: far more than the default 60 other requests a minute.
    const env = { ...store.env, DNS_SERVERS: dns.address, RATE_LIMIT_SEND_PER_MIN: '10000', RATE_LIMIT_OTHER_PER_MIN: '100000' };
    const created = mailroomCommand(['workspace', 'create', '--name', 'Backed up', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const key = JSON.parse(created.stdout).api_key as string;
    const serve = await startServe(env);
    let restored: ServeProcess | undefined;
    try {
      const call = api(serve, key);
      const domain = (await call('POST', '/v1/domains', { domain: 'backup.example' })).body.data;
      const dkim = (domain.records as { purpose: string; name: string; value: string }[]).find((r) => r.purpose === 'dkim')!;
      dns.setTxt(dkim.name, [dkim.value]);
      assert.equal((await call('POST', `/v1/domains/${domain.id}/verify`)).body.data.status, 'verified');
      const signed = (await call('POST', '/v1/send', send('hello@backup.example', 'Before the backup'))).body.data.message_id as string;
      const delivered = async (c: typeof call, id: string) =>
        waitFor(async () => ((await c('GET', `/v1/send/logs?message_id=${id}`)).body.data[0]?.status === 'delivered' ? true : undefined), `${id} delivered`);
      await delivered(call, signed);
      const detailBefore = (await call('GET', `/v1/messages/${signed}`)).body.data;
      const rawBefore = (await call('GET', `/v1/messages/${signed}/content`)).body.data.raw as string;
      const totalBefore = Number((await call('GET', '/v1/send/logs')).total);

      // Sends keep coming while the copy is made.
      const to = join(store.dataDir, 'backups', 'mailroom-backup.db');
      mkdirSync(join(store.dataDir, 'backups'));
      let sending = true;
      const burst = (async () => {
        let n = 0;
        while (sending) await call('POST', '/v1/send', send('hello@sandbox.mailroom.test', `During the backup ${++n}`));
        return n;
      })();
      const backup = await run(process.execPath, [BIN, 'backup', '--to', to], { env: { ...process.env, ...env } });
      sending = false;
      const duringBackup = await burst;
      assert.ok(duringBackup > 0);
      assert.match(backup.stdout, new RegExp(`^Backed up the store to ${to} \\(\\d+ pages\\)\\.\\nIts key: ${to}\\.key\\.`));
      assert.equal(modeOf(to), 0o600);
      assert.equal(modeOf(`${to}.key`), 0o600);
      const totalAfter = Number((await call('GET', '/v1/send/logs')).total);
      const refused = mailroomCommand(['backup', '--to', to], env);
      assert.deepEqual([refused.status, refused.stderr], [1, `mailroom: ${to} exists: mailroom backup does not overwrite\n`]);
      await serve.stop();

      // Restored as docs/secrets-and-backups.md says: the two files as mailroom.db and secret.key of a new data dir.
      const restoredDir = join(store.dataDir, 'restored');
      mkdirSync(restoredDir);
      copyFileSync(to, join(restoredDir, 'mailroom.db'));
      copyFileSync(`${to}.key`, join(restoredDir, 'secret.key'));
      restored = await startServe({ ...env, MAILROOM_DATA_DIR: restoredDir });
      const again = api(restored, key);
      assert.deepEqual((await again('GET', `/v1/messages/${signed}`)).body.data, detailBefore);
      assert.equal((await again('GET', `/v1/messages/${signed}/content`)).body.data.raw, rawBefore);
      const totalRestored = Number((await again('GET', '/v1/send/logs')).total);
      assert.ok(totalRestored >= totalBefore && totalRestored <= totalAfter, `${totalBefore} ≤ ${totalRestored} ≤ ${totalAfter}`);

      // The DKIM key came back with it, and opens with the restored key file.
      const after = (await again('POST', '/v1/send', send('hello@backup.example', 'After the restore'))).body.data.message_id as string;
      await delivered(again, after);
      const raw = (await again('GET', `/v1/messages/${after}/content`)).body.data.raw as string;
      const [verdict] = await verifyDkim(raw, dns);
      assert.deepEqual([verdict?.status.result, verdict?.signingDomain], ['pass', 'backup.example']);
    } finally {
      await serve.stop();
      await restored?.stop();
    }
  });

  it('says to use pg_dump with DATABASE_URL, and refuses a data dir with no store', () => {
    const pg = mailroomCommand(['backup', '--to', join(store.dataDir, 'pg.db')], { ...store.env, DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    assert.equal(pg.status, 1);
    assert.match(pg.stderr, /^mailroom: mailroom backup copies the embedded SQLite store; with DATABASE_URL, back PostgreSQL up with pg_dump/);
    const empty = join(store.dataDir, 'empty');
    const none = mailroomCommand(['backup', '--to', join(store.dataDir, 'none.db')], { MAILROOM_DATA_DIR: empty });
    assert.deepEqual([none.status, none.stderr], [1, `mailroom: There is no store to back up at ${join(empty, 'mailroom.db')} (MAILROOM_DATA_DIR)\n`]);
    assert.equal(existsSync(join(store.dataDir, 'none.db')), false);
  });
});
