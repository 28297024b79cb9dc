import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessagesTable } from '../src/db/schema.js';
import type { SigningDomain } from '../src/delivery/message-builder.js';
import { BuilderUnavailableError, buildInThread, createThreadedMessageBuilder } from '../src/delivery/threaded-message-builder.js';
import { newId, nowIso } from '../src/lib/ids.js';
import { generateDkimKeyPair } from '../src/domains/dkim-keys.js';
import { startDnsServer, type TestDnsServer } from './helpers/dns-server.js';
import { verifyDkim } from './helpers/verified-domain.js';

describe('building messages on a thread of their own', () => {
  let dns: TestDnsServer;
  let domain: SigningDomain;
  const builder = createThreadedMessageBuilder();
  const message = (): MessagesTable => ({
    id: newId('msg'), workspace_id: 'ws_test', from_name: 'Acme', from_address: 'hello@threads.example', reply_to: null, subject: 'Grüße',
    html: '<p>Hi</p>', text: 'Hi', recipients: JSON.stringify([{ name: 'Ada', address: 'ada@example.com' }, { name: '', address: 'bob@example.com' }]), cc: null, bcc: null, headers: null, tags: null, scheduled_at: null, content_expired_at: null, template_id: null, template_version: null, track_opens: 0, track_clicks: 0, created_at: nowIso(),
  });

  before(async () => {
    dns = await startDnsServer();
    const key = await generateDkimKeyPair();
    domain = { domain: 'threads.example', return_path_domain: 'mr-bounces.threads.example', dkim_selector: key.selector, dkim_private_key: key.privateKeyPem };
    dns.setTxt(`${key.selector}._domainkey.threads.example`, [`v=DKIM1; k=rsa; p=${key.publicKeyBase64}`]);
  });
  after(async () => {
    await builder.close();
    await dns.close();
  });

  it('builds what the calling thread would, signed so that mailauth verifies it', async () => {
    const source = message();
    const envelopes = [{ from: 'bounce+x@mr-bounces.threads.example', to: 'bob@example.com' }];
    const [threaded, local] = await Promise.all([builder(source, domain, envelopes), buildInThread(source, domain, envelopes)]);
    assert.ok(Buffer.isBuffer(threaded.raw));
    assert.deepEqual(threaded.envelopes, local.envelopes);
    assert.equal(threaded.messageIdHeader, `<${source.id}@threads.example>`);
    const [dkim] = await verifyDkim(threaded.raw, dns);
    assert.equal(dkim?.status.result, 'pass');
  });

  it('fails the builds a lost thread held as unavailable (to be retried), and starts a new thread for the next', async () => {
    const rejected = assert.rejects(builder(message(), domain, []), BuilderUnavailableError);
    await builder.close();
    await rejected;
    const next = await builder(message(), domain, []);
    assert.match(next.raw.toString('utf8'), /^DKIM-Signature: /m);
  });

  it('reports a message that cannot be built as an ordinary error', async () => {
    await assert.rejects(builder(message(), { ...domain, dkim_private_key: 'not a key' }, []), (error: Error) => !(error instanceof BuilderUnavailableError));
  });
});
