import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { freePort } from './helpers/free-port.js';
import { freshStore } from './helpers/test-store.js';

const ROOT = join(import.meta.dirname, '..');

/** The first shell block under a README heading: what a newcomer copies. */
function shellBlock(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, `README has a shell block under "${heading}"`);
  return block;
}

describe('README', () => {
  it('runs the first send as written against a fresh server in sandbox mode', async () => {
    const store = await freshStore();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }));
    try {
      const { port } = app.server.address() as { port: number };
      // The key the dashboard's setup shows (test/first-send-ui.test.ts walks that part in a browser).
      const { api_key } = await app.services.workspaces.create('Acme');
      // Only the port differs from the README: 3000 may be taken on a test machine.
      const script = shellBlock('## A first send').replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`);
      // Asynchronously: the server answering curl runs on this process's event loop.
      const { stdout: output } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: ROOT,
        env: { ...process.env, ...store.env, MAILROOM_API_KEY: api_key },
        encoding: 'utf8',
        timeout: 60_000,
      });
      // curl adds no newline, so the three bodies arrive back to back.
      const [send, logs, stats] = output.trim().split(/(?<=\})\s*(?=\{"success")/).map((body) => JSON.parse(body));
      assert.equal(send.success, true);
      assert.equal(send.data.status, 'sent');
      assert.equal(logs.data[0].message_id, send.data.message_id);
      assert.equal(logs.data[0].to, 'ada@example.com');
      assert.equal(stats.data.total_sent, 1);
    } finally {
      await app.close();
      await store.drop();
    }
  });

  it('runs the Resend-compatible examples as written: curl with a Bearer key, then the resend SDK', async () => {
    const store = await freshStore();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }));
    try {
      const { port } = app.server.address() as { port: number };
      const { api_key } = await app.services.workspaces.create('Acme');
      const script = shellBlock('## Resend-compatible API').replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`);
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: ROOT,
        env: { ...process.env, ...store.env, MAILROOM_API_KEY: api_key },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const [, curlId, lastEvent] = /^\{"id":"(msg_[^"]+)"\}\s*(\S+)\s*$/.exec(stdout) ?? [];
      assert.ok(curlId, stdout);
      assert.ok(['delivered', 'queued'].includes(lastEvent!), stdout);
    } finally {
      await app.close();
      await store.drop();
    }
  });

  it('runs the SMTP submission example as written (curl with STARTTLS and AUTH) against a fresh server', async () => {
    const store = await freshStore();
    const submissionPort = await freePort();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: String(submissionPort) }));
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-readme-'));
    try {
      const { port } = app.server.address() as { port: number };
      const { api_key } = await app.services.workspaces.create('Acme');
      // Only the ports differ from the README: 3000 and 587 may be taken (or need root) on a test machine.
      const script = shellBlock('## SMTP submission')
        .replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`)
        .replaceAll('smtp://127.0.0.1:587', `smtp://127.0.0.1:${submissionPort}`);
      const { stdout: output } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: dir,
        env: { ...process.env, MAILROOM_API_KEY: api_key },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const match = /^< 250 2\.0\.0 OK: queued as (msg_\S+)\r?\n(\{.*\})$/s.exec(output.trim());
      assert.ok(match, output);
      const logs = JSON.parse(match[2]!);
      assert.deepEqual(
        logs.data.map((e: Record<string, string>) => [e.message_id, e.to, e.from_email, e.subject, e.status]),
        [[match[1], 'archive@example.com', 'hello@sandbox.mailroom.test', 'Hello over SMTP', 'sent']],
      );
    } finally {
      await app.close();
      await store.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
