import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { buildMessage, type BuiltMessage } from '../src/delivery/message-builder.js';
import type { DomainsTable, MessagesTable } from '../src/db/schema.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { createSecretBox, DKIM_PRIVATE_KEY } from '../src/lib/secret-box.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';

/** One per recipient, as the worker makes them (signed return paths; any address will do here). */
const ENVELOPES = [
  { from: 'bounce+one@mr-bounces.mail.acme.example', to: 'ada@example.com' },
  { from: 'bounce+two@mr-bounces.mail.acme.example', to: 'bob@example.org' },
];
import { createTestApp, type TestApp } from './helpers/test-app.js';

describe('building a message', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let domain: DomainsTable;
  let message: MessagesTable;
  let built: BuiltMessage;
  let text: string;

  before(async () => {
    dns = await startDnsServer();
    t = await createTestApp({ DNS_SERVERS: dns.address });
    const res = await t.call('POST', '/v1/domains', { body: { domain: 'mail.acme.example' } });
    const { data } = res.json();
    // The DKIM record exactly as the API tells the customer to publish it, served by a real DNS server.
    const dkim = (data.records as { purpose: string; name: string; value: string }[]).find((r) => r.purpose === 'dkim')!;
    dns.setTxt(dkim.name, [dkim.value]);
    const row = (await t.db.selectFrom('domains').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow()) as DomainsTable;
    // Kept encrypted at rest: opened as the worker opens it just before a build (delivery-attempt.ts).
    domain = { ...row, dkim_private_key: createSecretBox(t.config.secretKey, DKIM_PRIVATE_KEY).open(row.dkim_private_key) };
    message = {
      id: newId('msg'),
      workspace_id: t.workspaceId,
      from_name: 'Acme Støtte',
      from_address: 'hello@mail.acme.example',
      reply_to: JSON.stringify({ name: '', address: 'support@acme.example' }),
      subject: 'Grüße aus Köln — your order',
      html: '<p>Hello <b>Ada</b></p>',
      text: 'Hello Ada',
      recipients: JSON.stringify([{ name: 'Ada Lovelace', address: 'ada@example.com' }, { name: '', address: 'bob@example.org' }]), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0,
      created_at: nowIso(),
    };
    built = await buildMessage(message, domain, ENVELOPES, [], new Date('2026-11-22T10:00:00Z'));
    text = built.raw.toString('utf8');
  });
  after(async () => {
    await t.close();
    await dns.close();
  });

  const header = (name: string) => new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, 'mi').exec(text.slice(0, text.indexOf('\r\n\r\n')))?.[1];

  it('puts the sender, every recipient, Reply-To, an encoded subject, Message-ID and Date in the headers', () => {
    assert.equal(header('From'), '=?UTF-8?Q?Acme_St=C3=B8tte?= <hello@mail.acme.example>');
    assert.equal(header('To'), 'Ada Lovelace <ada@example.com>, bob@example.org');
    assert.equal(header('Reply-To'), 'support@acme.example');
    assert.match(header('Subject')!, /^=\?UTF-8\?Q\?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln/);
    assert.equal(header('Message-ID'), `<${message.id}@mail.acme.example>`);
    assert.equal(built.messageIdHeader, `<${message.id}@mail.acme.example>`);
    assert.equal(header('Date'), 'Sun, 22 Nov 2026 10:00:00 +0000');
    assert.match(header('Content-Type')!, /^multipart\/alternative;/);
    assert.ok(text.includes('Hello Ada') && text.includes('<p>Hello <b>Ada</b></p>'), 'both parts');
  });

  it('carries the envelopes it was given, one per recipient, and none of them into the message', () => {
    assert.deepEqual(built.envelopes, ENVELOPES);
    assert.ok(!text.includes('bounce+'), 'the return paths are the envelope\'s, not the headers\'');
  });

  it('carries a DKIM signature that an independent verifier accepts against the published record', async () => {
    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const resolve = (name: string, type: string) => resolver.resolve(name, type as 'TXT');
    const { results } = await dkimVerify(built.raw, { resolver: resolve as never });
    assert.equal(results.length, 1);
    const [result] = results as unknown as { status: { result: string }; signingDomain: string; selector: string; algo: string }[];
    assert.equal(result!.status.result, 'pass');
    assert.equal(result!.signingDomain, 'mail.acme.example');
    assert.equal(result!.selector, domain.dkim_selector);
    assert.equal(result!.algo, 'rsa-sha256');

    // The verifier really checks: one changed byte of the body fails it.
    const tampered = Buffer.from(text.replace('Hello Ada', 'Hello Eve'));
    const { results: after } = await dkimVerify(tampered, { resolver: resolve as never });
    assert.notEqual((after[0] as { status: { result: string } }).status.result, 'pass');
  });
});
