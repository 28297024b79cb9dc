/**
 * `mailroom user create` as a real process: the password piped in with
 * --password-stdin, or typed at a real terminal (util-linux's `script` gives
 * the command a pseudo-terminal; the test answers each prompt once it shows).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createSessionService, verifyPassword } from '../src/people/index.js';
import { createStore } from '../src/composition/store.js';
import { createMemoryRateLimiter } from '../src/lib/rate-limiter.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { ensureGone, exitWithin } from './helpers/delivery-rig.js';
import { mailroomCommand, storeLine } from './helpers/serve-process.js';
import { migratedStore, type FreshStore } from './helpers/test-store.js';
import { waitFor } from './helpers/wait-for.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'mailroom.js');
const PASSWORD = 'a long enough one';

describe('mailroom user create', () => {
  let store: FreshStore;
  let workspaceId: string;
  before(async () => {
    store = await migratedStore();
    const created = mailroomCommand(['workspace', 'create', '--name', 'People', '--json'], store.env);
    workspaceId = JSON.parse(created.stdout).workspace_id;
  });
  after(() => store.drop());

  const userCreate = (args: string[], input: string) =>
    spawnSync(process.execPath, [BIN, 'user', 'create', ...args], { env: { ...process.env, ...store.env }, input, encoding: 'utf8' });

  async function storedUser(email: string) {
    const db = await openMigratedDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    try {
      const repos = createStore(db);
      const user = await repos.users.findByEmail(email);
      return user && { ...user, memberships: await repos.users.membershipsOf(user.id) };
    } finally {
      await db.destroy();
    }
  }

  it('creates an admin of a workspace from a password on standard input, and prints it as JSON', async () => {
    const res = userCreate(['--email', 'ada@example.com', '--password-stdin', '--workspace', workspaceId, '--role', 'admin', '--json'], `${PASSWORD}\n`);
    assert.equal(res.status, 0, res.stderr);
    const printed = JSON.parse(res.stdout);
    assert.deepEqual(printed, { id: printed.id, email: 'ada@example.com', memberships: [{ workspace_id: workspaceId, role: 'admin' }] });
    const user = await storedUser('ada@example.com');
    assert.equal(user?.id, printed.id);
    assert.deepEqual(user?.memberships, [{ workspace_id: workspaceId, role: 'admin' }]);
    assert.equal(await verifyPassword(PASSWORD, user!.password_hash), true, 'the final line break is not part of the password');
  });

  it('says what is wrong, with status 1, for a taken address or a short password, and 2 for a usage mistake', () => {
    const taken = userCreate(['--email', 'ADA@example.com', '--password-stdin'], PASSWORD);
    assert.deepEqual([taken.status, taken.stderr], [1, `${storeLine(store.env)}mailroom: A user with the e-mail address ADA@example.com exists\n`]);
    const short = userCreate(['--email', 'bob@example.com', '--password-stdin'], 'too short\n');
    assert.deepEqual([short.status, short.stderr], [1, `${storeLine(store.env)}mailroom: password must be at least 10 characters long\n`]);
    const noEmail = userCreate(['--password-stdin'], PASSWORD);
    assert.deepEqual([noEmail.status, noEmail.stderr], [2, 'mailroom: --email is required\n']);
    // Standard input that is not a terminal, without --password-stdin: nothing to ask on.
    const noTerminal = userCreate(['--email', 'bob@example.com'], PASSWORD);
    assert.deepEqual([noTerminal.status, noTerminal.stderr], [2, 'mailroom: No terminal to ask for the password on: pipe it in with --password-stdin\n']);
  });

  it('lists users with their workspaces, as JSON with --json', () => {
    const res = mailroomCommand(['user', 'list', '--json'], store.env);
    assert.equal(res.status, 0, res.stderr);
    const ada = (JSON.parse(res.stdout) as Array<Record<string, unknown>>).find((u) => u.email === 'ada@example.com');
    assert.deepEqual(ada, { id: ada?.id, email: 'ada@example.com', created_at: ada?.created_at, memberships: [{ workspace_id: workspaceId, role: 'admin' }] });
    assert.match(mailroomCommand(['user', 'list'], store.env).stdout, new RegExp(`^ID +E-MAIL +CREATED +WORKSPACES\n[\\s\\S]*ada@example\\.com +\\S+ +${workspaceId} \\(admin\\)`));
  });

  it('resets a password from standard input and ends every session of the user', async () => {
    const created = userCreate(['--email', 'reset@example.com', '--password-stdin', '--json'], PASSWORD);
    const { id } = JSON.parse(created.stdout);
    const db = await openMigratedDatabase(loadConfig({ ...store.env, LOG_LEVEL: 'silent' }));
    try {
      const sessions = createSessionService(createStore(db), createMemoryRateLimiter());
      const signedIn = await sessions.openFor({ id, email: 'reset@example.com' });
      const reset = spawnSync(process.execPath, [BIN, 'user', 'reset-password', '--email', 'Reset@Example.com', '--password-stdin', '--json'], {
        env: { ...process.env, ...store.env },
        input: 'a new long password\n',
        encoding: 'utf8',
      });
      assert.equal(reset.status, 0, reset.stderr);
      assert.deepEqual(JSON.parse(reset.stdout), { id, email: 'reset@example.com', ended_sessions: 1 });
      assert.equal(await sessions.authenticate(signedIn.token), undefined, 'the old session no longer signs in');
      const user = await storedUser('reset@example.com');
      assert.equal(await verifyPassword('a new long password', user!.password_hash), true);
      assert.equal(await verifyPassword(PASSWORD, user!.password_hash), false);
    } finally {
      await db.destroy();
    }
    const resetCommand = (email: string, input: string) =>
      spawnSync(process.execPath, [BIN, 'user', 'reset-password', '--email', email, '--password-stdin'], { env: { ...process.env, ...store.env }, input, encoding: 'utf8' });
    assert.deepEqual(pick(resetCommand('nobody@example.com', PASSWORD)), [1, `${storeLine(store.env)}mailroom: No user with the e-mail address nobody@example.com\n`]);
    assert.deepEqual(pick(resetCommand('reset@example.com', 'short')), [1, `${storeLine(store.env)}mailroom: password must be at least 10 characters long\n`]);
  });

  const pick = (res: { status: number | null; stderr: string }) => [res.status, res.stderr];

  /** Runs `user create` at a pseudo-terminal, typing each answer once its prompt has shown; resolves with the exit status and all the terminal showed. */
  async function atTerminal(args: string[], answers: string[]): Promise<{ status: number | null; screen: string }> {
    const command = [process.execPath, BIN, 'user', 'create', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-q', '-e', '-c', `exec ${command}`, '/dev/null'], { env: { ...process.env, ...store.env } });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const prompts = ['Password: ', 'Repeat the password: '];
    // Its exit waited for within a bound, and the command ended whatever happens: one still waiting at the
    // terminal (for a prompt's answer, or holding on to it once done) would keep the test process alive forever.
    try {
      for (const [i, answer] of answers.entries()) {
        await waitFor(() => screen.split(prompts[i]!).length > 1, `the prompt ${JSON.stringify(prompts[i])}`);
        child.stdin.write(`${answer}\r`);
      }
      return { status: await exitWithin(exited, 20_000, 'mailroom user create'), screen };
    } finally {
      await ensureGone(child);
    }
  }

  it('asks for the password twice at a terminal, without showing it, and creates the user', async () => {
    const { status, screen } = await atTerminal(['--email', 'grace@example.com', '--workspace', workspaceId, '--role', 'viewer'], [PASSWORD, PASSWORD]);
    assert.equal(status, 0, screen);
    assert.match(screen, /User usr_[0-9a-z]{26} \(grace@example\.com\) created, viewer of ws_/);
    assert.ok(!screen.includes(PASSWORD), `the password never appears on the terminal:\n${screen}`);
    assert.equal(await verifyPassword(PASSWORD, (await storedUser('grace@example.com'))!.password_hash), true);
  });

  it('refuses two different answers at the terminal, and creates no one', async () => {
    const { status, screen } = await atTerminal(['--email', 'linus@example.com'], [PASSWORD, `${PASSWORD}!`]);
    assert.equal(status, 2, screen);
    assert.match(screen, /The two passwords differ/);
    assert.equal(await storedUser('linus@example.com'), undefined);
  });
});
