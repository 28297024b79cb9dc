/**
 * docs/sdk.md's block runs as written against a fresh server in sandbox mode,
 * with the SDK built from this checkout's sdk/src (as `npm install` builds
 * sdk/dist) and MAILROOM_API_KEY set as after the README's first send.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { docBlock } from './helpers/doc-blocks.js';
import { buildSdk, ROOT } from './helpers/sdk-dist.js';
import { freshStore } from './helpers/test-store.js';

const run = promisify(execFile);

describe('docs/sdk.md', () => {
  it('sends, lists the log and reads the statistics through the built SDK', async () => {
    const built = await buildSdk();
    const store = await freshStore();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }));
    try {
      const { port } = app.server.address() as { port: number };
      const { api_key } = await app.services.workspaces.create('Acme');
      // Only the port (3000 may be taken on a test machine) and where the build is differ from the guide.
      const script = docBlock('docs/sdk.md').replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`).replaceAll('./sdk/dist/', `${built.dir}/`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, MAILROOM_API_KEY: api_key }, encoding: 'utf8', timeout: 60_000 });
      // console.log breaks the statistics object over several lines.
      const [sent, logged, ...stats] = stdout.trim().split('\n');
      const messageId = /^\{ message_id: '(msg_[0-9a-z]{26})', status: 'sent' \}$/.exec(sent ?? '')?.[1];
      assert.ok(messageId, `the send's result: ${stdout}`);
      assert.equal(logged, 'ada@example.com send');
      assert.match(stats.join(' '), /^\{\s+total_sent: 1,\s+delivered: [01],\s+bounced: 0,\s+complained: 0,\s+suppressed: 0,\s+failed: 0\s+\}$/);
    } finally {
      await app.close();
      await store.drop();
      built.remove();
    }
  });
});
