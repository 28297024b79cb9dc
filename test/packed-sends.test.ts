import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reviveAttachments, type AcceptedSend, type AcceptedSendWriter } from '../src/sending/acceptance/accepted-sends.js';
import { packSend, unpackSend } from '../src/sending/acceptance/packed-sends.js';
import { createThreadedSendWriter } from '../src/sending/acceptance/threaded-send-writer.js';
import { createSendService } from '../src/sending/send-service.js';
import type { SendInput } from '../src/sending/send-request.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('sends packed for the SQLite writer thread', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, { store: 'sqlite' });
  });
  after(() => t.close());

  /** The sends the real send service hands its writer for these requests (nothing is written). */
  async function sendsFor(inputs: SendInput[], options: { batch?: boolean; key?: boolean } = {}): Promise<AcceptedSend[]> {
    const given: AcceptedSend[] = [];
    const capture: AcceptedSendWriter = {
      write: async (send) => (given.push(send), { queued: send.job !== null }),
      close: async () => {},
    };
    const service = createSendService(t.store, capture, t.config);
    const key = options.key ? { id: 'key_packed_test', domainId: null } : null;
    if (options.batch) await service.acceptBatch(t.workspaceId, inputs, key);
    else for (const input of inputs) await service.accept(t.workspaceId, input, key);
    return given;
  }

  const plain: SendInput = { from_email: 'Sender <a@sandbox.mailroom.test>', to: ['b@example.com'], subject: 'Hello', text: 'Hi' };
  const everything: SendInput = {
    from_email: 'Ünïcode Sender <a@sandbox.mailroom.test>',
    to: ['b@example.com', 'Cee <c@example.com>'],
    cc: ['d@example.com'],
    bcc: ['e@example.com'],
    reply_to: ['r@example.com'],
    subject: 'Everything ✓',
    html: '<p>Hi</p>',
    text: 'Hi',
    headers: { 'X-Entity-Ref-ID': '42' },
    tags: [{ name: 'category', value: 'reset' }],
    scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
  } as SendInput;

  /** What the writer thread gets back: packed, structured-cloned as postMessage does, unpacked and revived as the thread does. */
  const acrossThreads = (send: AcceptedSend) => reviveAttachments([unpackSend(structuredClone(packSend(send)))])[0];

  it('gives back exactly the send it was given, for ordinary sends of every field', async () => {
    const sends = [
      ...(await sendsFor([plain, everything], { key: true })),
      ...(await sendsFor([plain, everything])),
      ...(await sendsFor([plain, everything, plain], { batch: true })),
    ];
    assert.equal(sends.length, 7);
    for (const send of sends) {
      assert.ok(Array.isArray(packSend(send)), 'an ordinary send crosses packed');
      assert.deepStrictEqual(acrossThreads(send), send);
    }
    // The cases that carry the optional parts: a key, a group, several recipients, a schedule.
    assert.equal(sends[0]!.keyId, 'key_packed_test');
    assert.equal(sends[1]!.entries.length, 4);
    assert.notEqual(sends[1]!.job!.available_at, sends[1]!.message.created_at);
    assert.ok(sends[4]!.group);
  });

  it('hands a send that is not of the ordinary shape over as it is: attachments, events, a row that differs', async () => {
    const [withAttachment] = await sendsFor([{ ...plain, attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64') }] } as SendInput]);
    const [unverified] = await sendsFor([{ ...plain, from_email: 'a@not-a-domain-of-ours.example' }]);
    assert.ok(withAttachment!.attachments!.length === 1 && unverified!.events.length === 1, 'the cases are what they claim');
    const [changed] = await sendsFor([plain]);
    changed!.entries[0]!.updated_at = '2000-01-01T00:00:00.000Z';
    for (const send of [withAttachment!, unverified!, changed!]) {
      assert.equal(packSend(send), send);
      assert.deepStrictEqual(acrossThreads(send), send);
    }
  });

  it('writes every column of a packed send through the writer thread', async () => {
    const sends = await sendsFor([everything, plain], { batch: true });
    const writer = createThreadedSendWriter(t.config.dataDir);
    try {
      await Promise.all(sends.map((send) => writer.write(send)));
    } finally {
      await writer.close();
    }
    for (const send of sends) {
      const message = await t.db.selectFrom('messages').selectAll().where('id', '=', send.message.id).executeTakeFirstOrThrow();
      assert.deepStrictEqual({ ...message }, send.message);
      const entries = await t.db.selectFrom('log_entries').selectAll().where('message_id', '=', send.message.id).orderBy('id').execute();
      assert.deepStrictEqual(entries.map((e) => ({ ...e })), [...send.entries].sort((a, b) => a.id.localeCompare(b.id)));
      const job = await t.db.selectFrom('delivery_jobs').select(['message_id', 'available_at', 'state', 'workspace_id']).where('message_id', '=', send.message.id).executeTakeFirstOrThrow();
      assert.deepStrictEqual({ ...job }, { message_id: send.message.id, available_at: send.job!.available_at, state: 'pending', workspace_id: t.workspaceId });
    }
  });
});
