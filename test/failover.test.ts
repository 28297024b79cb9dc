/**
 * handOverWithFailover (delivery/failover.ts) on its own: which outcome a recipient keeps when the
 * upstreams of its route could not carry it, with fake providers and a breaker the test sets.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createStore } from '../src/composition/store.js';
import { openMigratedDatabase } from '../src/composition/store-runtime.js';
import { handOverWithFailover } from '../src/delivery/failover.js';
import { BREAKER_RULE, createUpstreamBreaker, type UpstreamTransition } from '../src/delivery/upstream-breaker.js';
import { freshStore } from './helpers/test-store.js';
import type { BuiltMessage } from '../src/delivery/message-builder.js';
import type { Provider, RecipientOutcome } from '../src/delivery/provider.js';
import type { Admission, UpstreamBreaker } from '../src/delivery/upstream-breaker.js';

const message: BuiltMessage = {
  messageId: 'msg_1', workspaceId: 'ws_1', messageIdHeader: '<msg_1@acme.example>', fromAddress: 'hello@acme.example', raw: Buffer.from('Subject: x\r\n\r\nx'),
  envelopes: [{ from: 'bounce+1@rp.acme.example', to: 'ada@example.com' }],
};

/** Credentials refused, as the refusal table reads a 535. */
const authRefused = (recipient: string): RecipientOutcome => ({
  recipient, kind: 'failed', detail: 'The SMTP relay a:587 refused Mailroom\'s credentials (check SMTP_URL): "535 5.7.8 Authentication credentials invalid"',
  problem: { kind: 'auth', host: 'a:587', reply: '535 5.7.8 Authentication credentials invalid' },
});

function provider(name: string, answer: (recipient: string) => RecipientOutcome): Provider & { sent: number } {
  const p = { name, sent: 0, async send(m: BuiltMessage) { p.sent++; return m.envelopes.map((e) => answer(e.to)); }, async close() {} };
  return p;
}

function breaker(admissions: Record<string, Admission>): UpstreamBreaker {
  return { admit: async (key) => admissions[key] ?? 'yes', failed: async () => undefined, answered: async () => undefined };
}

const deps = (b: UpstreamBreaker) => ({ breaker: b, trouble: { report() {} }, onProviderError() {} });

describe('what a recipient keeps when no upstream of its route carried it', () => {
  it('the refusal, when every upstream was tried and refused Mailroom: failed', async () => {
    const a = provider('smtp', authRefused);
    const b = provider('smtp', authRefused);
    const { outcomes } = await handOverWithFailover(message, [{ key: 'ups_a', provider: a }, { key: 'ups_b', provider: b }], deps(breaker({})));
    assert.equal(outcomes.get('ada@example.com')!.kind, 'failed');
    assert.equal(outcomes.get('ada@example.com')!.upstream, 'ups_b');
  });

  for (const [what, down] of [['after it', 'ups_b'], ['before it', 'ups_a']] as const) {
    it(`a retry, when one upstream refused Mailroom and another, ${what} on the route, was passed by as down: it may carry the mail once back`, async () => {
      const a = provider('smtp', authRefused);
      const b = provider('smtp', authRefused);
      const { outcomes } = await handOverWithFailover(message, [{ key: 'ups_a', provider: a }, { key: 'ups_b', provider: b }], deps(breaker({ [down]: 'no' })));
      const outcome = outcomes.get('ada@example.com')!;
      assert.equal(outcome.kind, 'temporary', outcome.detail);
      assert.match(outcome.detail, /535 5\.7\.8/);
      assert.match(outcome.detail, new RegExp(`${down}.*down`));
      assert.equal(a.sent + b.sent, 1);
    });
  }

  it("a recipient's own refusal, whatever the breaker holds: permanent, never retried elsewhere", async () => {
    const a = provider('smtp', (recipient) => ({ recipient, kind: 'permanent', detail: '550 5.1.1 User unknown', bounceSubtype: 'NoEmail' }));
    const b = provider('smtp', (recipient) => ({ recipient, kind: 'accepted', detail: '250 OK' }));
    const { outcomes, failedOver } = await handOverWithFailover(message, [{ key: 'ups_a', provider: a }, { key: 'ups_b', provider: b }], deps(breaker({})));
    assert.equal(outcomes.get('ada@example.com')!.kind, 'permanent');
    assert.deepEqual([b.sent, failedOver.length], [0, 0]);
  });
});

describe('what the breaker hears of a hand-over the upstream carried in part', () => {
  const opened: { drop(): Promise<void> }[] = [];
  after(async () => {
    for (const o of opened) await o.drop();
  });

  /** The real breaker on a store of its own, and what it told. */
  async function realBreaker() {
    const fresh = await freshStore();
    const db = await openMigratedDatabase(loadConfig({ ...fresh.env, LOG_LEVEL: 'silent' }));
    opened.push({ drop: async () => { await db.destroy(); await fresh.drop(); } });
    const told: UpstreamTransition[] = [];
    return { real: createUpstreamBreaker(createStore(db), async (change) => void told.push(change), BREAKER_RULE), told };
  }

  it('an answer, not a failure: an upstream that refuses to relay for some recipients and takes the others is not taken down (and up again at once)', async () => {
    const { real, told } = await realBreaker();
    const relayDenied = (recipient: string): RecipientOutcome => ({
      recipient, kind: 'failed', detail: 'The SMTP relay a:587 refused to relay for Mailroom', problem: { kind: 'relay-policy', host: 'a:587', reply: '554 5.7.1 Relay access denied' },
    });
    const a = provider('smtp', (recipient) => (recipient.endsWith('@example.org') ? relayDenied(recipient) : { recipient, kind: 'accepted', detail: '250 OK' }));
    const b = provider('smtp', (recipient) => ({ recipient, kind: 'accepted', detail: '250 OK' }));
    const mixed: BuiltMessage = { ...message, envelopes: [{ from: 'bounce+1@rp.acme.example', to: 'ada@example.com' }, { from: 'bounce+2@rp.acme.example', to: 'bob@example.org' }] };
    for (let i = 0; i < 2 * BREAKER_RULE.failures; i++) {
      const { outcomes } = await handOverWithFailover(mixed, [{ key: 'ups_a', provider: a }, { key: 'ups_b', provider: b }], deps(real));
      assert.deepEqual([outcomes.get('ada@example.com')!.upstream, outcomes.get('bob@example.org')!.upstream], ['ups_a', 'ups_b'], 'the refused recipient failed over');
    }
    assert.deepEqual(told, [], 'neither down nor up');
    assert.equal(await real.admit('ups_a', false), 'yes');
  });

  it("an answer too: a relay without SMTPUTF8 refusing the addresses that need it is not taken down for everyone's mail", async () => {
    const { real, told } = await realBreaker();
    const a = provider('smtp', (recipient) => ({
      recipient, kind: 'failed', detail: 'Not sent: the SMTP relay a:587 does not announce SMTPUTF8', problem: { kind: 'smtputf8', host: 'a:587', reply: '250-a.example | 250 8BITMIME' },
    }));
    const b = provider('smtp', (recipient) => ({ recipient, kind: 'accepted', detail: '250 OK' }));
    const utf8: BuiltMessage = { ...message, envelopes: [{ from: 'bounce+1@rp.acme.example', to: 'josé@example.com' }] };
    for (let i = 0; i < 2 * BREAKER_RULE.failures; i++) {
      const { outcomes } = await handOverWithFailover(utf8, [{ key: 'ups_a', provider: a }, { key: 'ups_b', provider: b }], deps(real));
      assert.equal(outcomes.get('josé@example.com')!.upstream, 'ups_b', 'it failed over to an upstream that may have SMTPUTF8');
    }
    assert.deepEqual(told, []);
    assert.equal(await real.admit('ups_a', false), 'yes');
  });
});
