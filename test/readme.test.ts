/**
 * The README's first send runs as written against a fresh server in sandbox
 * mode, with the API key the dashboard's setup shows in MAILROOM_API_KEY (as
 * the README has the reader paste it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { docBlock, onPort, runShell } from './helpers/doc-blocks.js';
import { freshStore } from './helpers/test-store.js';

describe('README', () => {
  it('runs the first send as written against a fresh server in sandbox mode', async () => {
    const store = await freshStore();
    const app = await startServer(loadConfig({ ...store.env, LOG_LEVEL: 'silent', PORT: '0', INBOUND_SMTP_PORT: '0', SUBMISSION_PORT: '0' }));
    try {
      const { port } = app.server.address() as { port: number };
      const { api_key } = await app.services.workspaces.create('Acme');
      const block = docBlock('README.md', '## A first send');
      assert.doesNotMatch(block, /mailroom(\.js)? workspace create/, 'the key is the one the setup page shows, not a workspace of its own');
      // Only the port differs from the README: 3000 may be taken on a test machine.
      const output = await runShell(onPort(block, port), { env: { MAILROOM_API_KEY: api_key } });
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
});
