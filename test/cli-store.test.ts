import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mailroomCommand as mailroom, startServe, storeLine } from './helpers/serve-process.js';
import { freshStore, TEST_STORE, type FreshStore } from './helpers/test-store.js';

/** The stores a test made, removed after the file. */
const made: FreshStore[] = [];
after(() => Promise.all(made.map((store) => store.drop())));
async function newStore(kind = TEST_STORE): Promise<FreshStore> {
  const store = await freshStore(kind);
  made.push(store);
  return store;
}

/** The tables of a test's PostgreSQL database: none until something makes the store. */
async function postgresTables(env: Record<string, string>): Promise<number> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'")).rows[0].n;
  } finally {
    await client.end();
  }
}

/** Every command that works on an existing store, with what it needs besides. */
const ON_EXISTING_STORE = [
  ['workspace', 'create', '--name', 'Acme', '--json'],
  ['workspace', 'list'],
  ['api-key', 'create', '--workspace', 'ws_x', '--name', 'ci'],
  ['api-key', 'list', '--workspace', 'ws_x'],
  ['api-key', 'delete', '--workspace', 'ws_x', 'key_x'],
  ['user', 'list'],
  ['user', 'reset-password', '--email', 'ada@example.com', '--password-stdin'],
  ['sandbox', 'show', 'msg_x'],
  ['secrets', 'rotate'],
  // Not serve: a worker that made a store would poll one no API sends into.
  ['worker'],
];

describe('the store a mailroom command uses', () => {
  it('refuses, on a data dir with no store, every command but migrate and serve, naming the variable, and makes nothing', async () => {
    const store = await newStore();
    const variable = TEST_STORE === 'postgres' ? 'DATABASE_URL' : 'MAILROOM_DATA_DIR';
    const name = storeLine(store.env).replace(/^mailroom: using store /, '').trimEnd();
    const refusal = `mailroom: There is no store at ${name}, and this command does not make one: set ${variable} to the store the server uses, or make this one with mailroom migrate (or mailroom serve)\n`;
    // A data dir that is not there at all, as ./data is on a fresh checkout; and the empty one freshStore made.
    const missingDir = join(store.dataDir, 'data');
    for (const args of ON_EXISTING_STORE) {
      const res = mailroom(args, store.env);
      assert.deepEqual([res.status, res.stdout, res.stderr], [1, '', refusal], args.join(' '));
      if (TEST_STORE === 'sqlite') {
        const elsewhere = mailroom(args, { ...store.env, MAILROOM_DATA_DIR: missingDir });
        assert.equal(elsewhere.status, 1, args.join(' '));
        assert.equal(elsewhere.stderr, refusal.replace(name, `${join(missingDir, 'mailroom.db')} (MAILROOM_DATA_DIR)`));
      }
    }
    assert.deepEqual(readdirSync(store.dataDir), [], 'no store file, no key file, no data dir');
    if (TEST_STORE === 'postgres') assert.equal(await postgresTables(store.env), 0, 'no table was made');
  });

  it('makes the store with migrate, saying so; every command after it names the store on stderr, its stdout unchanged', async () => {
    const store = await newStore();
    const migrated = mailroom(['migrate', '--json'], store.env);
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.equal(migrated.stderr, storeLine(store.env, 'creating'));
    assert.ok(JSON.parse(migrated.stdout).applied.length > 0);
    if (TEST_STORE === 'sqlite') assert.ok(existsSync(join(store.dataDir, 'mailroom.db')));
    else assert.ok((await postgresTables(store.env)) > 0);
    assert.equal(mailroom(['migrate'], store.env).stderr, storeLine(store.env));

    const created = mailroom(['workspace', 'create', '--name', 'Acme', '--json'], store.env);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /^\{"workspace_id": "ws_[0-9a-z]{26}", "api_key": "mr_[A-Za-z0-9_-]{43}"\}\n$/);
    assert.equal(created.stderr, storeLine(store.env));
    const { workspace_id } = JSON.parse(created.stdout);
    for (const args of [['workspace', 'list', '--json'], ['api-key', 'list', '--workspace', workspace_id], ['user', 'list']]) {
      const res = mailroom(args, store.env);
      assert.deepEqual([res.status, res.stderr], [0, storeLine(store.env)], args.join(' '));
    }
    // Commands that open no store say nothing of one.
    for (const args of [['config', '--json'], ['--version'], ['workspace', 'create', '--help']]) assert.equal(mailroom(args, store.env).stderr, '', args.join(' '));
  });

  it('names the embedded store by its absolute path whatever MAILROOM_DATA_DIR says, and backup names the store it copies', async () => {
    const store = await newStore('sqlite');
    const relative = { MAILROOM_DATA_DIR: 'data' };
    assert.equal(mailroom(['migrate'], relative, { cwd: store.dataDir }).stderr, `mailroom: creating store ${join(store.dataDir, 'data', 'mailroom.db')} (MAILROOM_DATA_DIR)\n`);
    assert.equal(mailroom(['workspace', 'list'], relative, { cwd: store.dataDir }).stderr, `mailroom: using store ${join(store.dataDir, 'data', 'mailroom.db')} (MAILROOM_DATA_DIR)\n`);
    const backup = mailroom(['backup', '--to', join(store.dataDir, 'copy.db')], { MAILROOM_DATA_DIR: join(store.dataDir, 'data') });
    assert.deepEqual([backup.status, backup.stderr], [0, storeLine({ MAILROOM_DATA_DIR: join(store.dataDir, 'data') })]);
  });

  it('serve makes the store when there is none, saying so on stderr', async () => {
    const store = await newStore();
    const dataDir = join(store.dataDir, 'new');
    mkdirSync(dataDir);
    const env = { ...store.env, MAILROOM_DATA_DIR: dataDir };
    const server = await startServe(env);
    try {
      assert.ok(server.output().includes(storeLine(env, 'creating')), server.output());
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const again = await startServe(env);
    try {
      assert.ok(again.output().includes(storeLine(env)), again.output());
    } finally {
      assert.equal(await again.stop(), 0);
    }
  });
});
