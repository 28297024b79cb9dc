import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildMessage, type BuiltMessage } from '../src/delivery/message-builder.js';
import { createSandboxProvider, SIMULATOR_DOMAIN } from '../src/delivery/sandbox-provider.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { mailroomCommand, storeLine } from './helpers/serve-process.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('sandbox provider', () => {
  let t: TestApp;
  let built: BuiltMessage;
  const to = ['ada@example.com', `delivered@${SIMULATOR_DOMAIN}`, `bounce@${SIMULATOR_DOMAIN}`, `complaint@${SIMULATOR_DOMAIN}`, `TempFail@${SIMULATOR_DOMAIN}`];

  before(async () => {
    t = await createTestApp();
    const keys = await generateDkimKeyPair();
    built = await buildMessage(
      {
        id: newId('msg'),
        workspace_id: t.workspaceId,
        from_name: 'Acme',
        from_address: 'hello@sandbox.mailroom.test',
        reply_to: null,
        subject: 'Sandboxed',
        html: null,
        text: 'Nothing leaves the machine',
        recipients: JSON.stringify(to.map((address) => ({ name: '', address }))), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0,
        created_at: nowIso(),
      },
      { domain: 'sandbox.mailroom.test', return_path_domain: 'mr-bounces.sandbox.mailroom.test', dkim_selector: 'mrtest', dkim_private_key: keys.privateKeyPem },
      to.map((address, index) => ({ from: `bounce+r${index}@mr-bounces.sandbox.mailroom.test`, to: address })),
    );
  });
  after(() => t.close());

  it('keeps the message and answers each simulator mailbox as documented, every other address delivered', async () => {
    const outcomes = await createSandboxProvider(t.store).send(built);
    assert.deepEqual(outcomes.map((o) => [o.recipient, o.kind, o.complaint]), [
      ['ada@example.com', 'delivered', undefined],
      [`delivered@${SIMULATOR_DOMAIN}`, 'delivered', undefined],
      [`bounce@${SIMULATOR_DOMAIN}`, 'permanent', undefined],
      [`complaint@${SIMULATOR_DOMAIN}`, 'delivered', 'abuse'],
      [`TempFail@${SIMULATOR_DOMAIN}`, 'temporary', undefined],
    ]);
    assert.match(outcomes[2]!.detail, /^550 5\.1\.1 /);
    assert.match(outcomes[4]!.detail, /^451 /);
    const kept = await t.store.sandboxMessages.find(built.messageId);
    assert.equal(kept?.raw, built.raw.toString('utf8'));
    assert.deepEqual(JSON.parse(kept!.envelope_to), to);
    assert.deepEqual(JSON.parse(kept!.envelope_from), built.envelopes.map((e) => e.from));
  });

  it('keeps one copy when the same message is sent again (a retry)', async () => {
    await createSandboxProvider(t.store).send(built);
    const rows = await t.db.selectFrom('sandbox_messages').select('message_id').where('message_id', '=', built.messageId).execute();
    assert.equal(rows.length, 1);
  });

  it('reads a kept message back with `mailroom sandbox show`, and says so when there is none', () => {
    const shown = mailroomCommand(['sandbox', 'show', built.messageId], t.storeEnv);
    assert.equal(shown.status, 0, shown.stderr);
    assert.equal(shown.stdout.replace(/\n$/, ''), built.raw.toString('utf8').replace(/\n$/, ''));
    const missing = mailroomCommand(['sandbox', 'show', 'msg_nope'], t.storeEnv);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `${storeLine(t.storeEnv)}mailroom: The sandbox holds no message msg_nope\n`);
    const usage = mailroomCommand(['sandbox', 'show'], t.storeEnv);
    assert.equal(usage.status, 2);
  });
});
