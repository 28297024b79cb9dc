import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { classifyFinding } from '../src/inbound/bounce-classifier.js';
import { BOUNCE_REASONS, bounceSubtypeOf, isBounceReason, kindOfReason, type Reason } from '../src/inbound/bounce-reasons.js';
import { emptyFinding } from '../src/inbound/types.js';
import { classifyRefusal } from '../src/delivery/refusal-table.js';

/** The one reason taxonomy: the same in code, in docs/inbound.md, inbound and outgoing. */
describe('the reason taxonomy', () => {
  it('is docs/inbound.md\'s table, row by row, in the same order', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'docs', 'inbound.md'), 'utf8');
    const from = readme.slice(readme.indexOf('| reason | what it means | kind |'));
    const table = from.slice(0, from.indexOf('\n\n'));
    const rows = [...table.matchAll(/^\| `([a-z]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
    assert.deepEqual(rows, Object.entries(BOUNCE_REASONS).map(([reason, row]) => [reason, row.label]));
  });

  it('reads the status code first, the reply code second, the text third', () => {
    const reasonOf = (status: string | null, diagnostic: string) => classifyFinding({ ...emptyFinding('ada@example.com'), action: 'failed', status, diagnostic }).reason;
    assert.equal(reasonOf('5.1.1', 'rejected'), 'userunknown');
    assert.equal(reasonOf(null, '556 example.com does not accept mail here'), 'notaccept');
    assert.equal(reasonOf(null, '521 no thanks'), 'notaccept');
    assert.equal(reasonOf('5.0.0', 'mailbox is full'), 'mailboxfull');
  });

  it('makes a bounce hard only for a bad address, and never a delay', () => {
    const hard = (Object.keys(BOUNCE_REASONS) as Reason[]).filter((r) => isBounceReason(r) && kindOfReason(r, true, false) === 'hard_bounce');
    assert.deepEqual(hard, ['userunknown', 'hostunknown', 'hasmoved', 'notaccept']);
    assert.equal(kindOfReason('notaccept', false, false), 'soft_bounce');
    assert.equal(kindOfReason('userunknown', true, true), 'soft_bounce');
    assert.equal(bounceSubtypeOf('userunknown', true), 'NoEmail');
    assert.equal(bounceSubtypeOf('mailboxfull', false), 'MailboxFull');
  });

  it('gives a relay\'s refusal the reason and subtype it gives the same words coming back in a bounce', () => {
    const reply = '552 5.2.2 <ada@example.com>: Mailbox full';
    const refusal = classifyRefusal({ stage: 'RCPT', code: 552, text: reply });
    const inbound = classifyFinding({ ...emptyFinding('ada@example.com'), action: 'failed', status: '5.2.2', diagnostic: reply, command: 'RCPT' });
    assert.equal(refusal.reason, inbound.reason);
    assert.equal(refusal.subtype, bounceSubtypeOf(inbound.reason, false));
  });
});
