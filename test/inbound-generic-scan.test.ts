import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readMimeMessage } from '../src/inbound/mime-message.js';
import { scanForFailures } from '../src/inbound/generic-scan.js';
import { parseInboundMessage } from '../src/inbound/parse-report.js';

/**
 * The fallback for reports in a layout no reader knows: status codes and
 * SMTP replies anywhere in a message that shows itself a report; and what it
 * must leave alone (a person's mail quoting an error, a mailing list, an
 * auto-reply).
 */

const message = (headers: string[], body: string[]) => Buffer.from([...headers, '', ...body, ''].join('\n'));
const kinds = async (raw: Buffer) => (await parseInboundMessage(raw)).results.map((r) => [r.recipient, r.kind, r.status, r.reason]);

describe('the generic scan', () => {
  it('finds the address beside the reply in a layout no reader knows', async () => {
    const raw = message(
      ['From: Delivery Robot <mailer-daemon@gw.example.net>', 'To: bounce+msg_01gen@mr-bounces.acme.example', 'Subject: Delivery failure', 'Date: Mon, 23 Nov 2026 10:00:00 +0000'],
      [
        'Delivery report for your message of 23 Nov 2026.',
        '',
        'Result 550 5.1.1 for ada@example.net: mailbox unavailable',
        'Result 452 4.2.2 for bob@example.org: over quota, will retry later',
      ],
    );
    assert.deepEqual(await kinds(raw), [
      ['ada@example.net', 'hard_bounce', '5.1.1', 'userunknown'],
      ['bob@example.org', 'soft_bounce', '4.2.2', 'mailboxfull'],
    ]);
  });

  it('reads a generated notice (Auto-Submitted: auto-generated) that quotes a reply with its status code', async () => {
    const raw = message(
      ['From: Gateway <gateway@relay.example.com>', 'To: ops@acme.example', 'Subject: Notice 4471', 'Auto-Submitted: auto-generated'],
      ['Transfer of item 4471 stopped.', 'Peer said: 550 5.1.1 <grace@example.com>: Recipient address rejected: User unknown'],
    );
    assert.deepEqual(await kinds(raw), [['grace@example.com', 'hard_bounce', '5.1.1', 'userunknown']]);
  });

  it('scans the attached text and a delivery-status part the DSN reader could not read', async () => {
    const raw = message(
      ['From: MAILER-DAEMON@mx.example.org', 'To: bounce+msg_01gen@mr-bounces.acme.example', 'Subject: Undeliverable', 'MIME-Version: 1.0', 'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"'],
      ['--b1', 'Content-Type: text/plain', '', 'Your message could not be delivered.', '', '--b1', 'Content-Type: message/delivery-status', '', 'Recipient ada@example.org failed: 554 5.7.1 rejected as spam', '', '--b1--'],
    );
    const scanned = scanForFailures(await readMimeMessage(raw));
    assert.deepEqual(scanned?.findings.map((f) => [f.recipient, f.status]), [['ada@example.org', '5.7.1']]);
    assert.deepEqual(await kinds(raw), [['ada@example.org', 'soft_bounce', '5.7.1', 'spamdetected']]);
  });

  it('leaves a person quoting an error, a mailing list and an auto-reply as they are', async () => {
    const person = message(
      ['From: Bob <bob@example.org>', 'To: ada@acme.example', 'Subject: Re: your mail', 'In-Reply-To: <msg_01abc@acme.example>'],
      ['Hi Ada, my server said "550 5.1.1 <old@example.org> user unknown" when I wrote to my old address; use this one.'],
    );
    assert.deepEqual(await kinds(person), [[null, 'none', null, null]]);
    const list = message(
      ['From: Ops list <ops@lists.example.org>', 'To: ada@acme.example', 'Subject: Undelivered mail this week', 'List-Id: <ops.lists.example.org>', 'Precedence: list'],
      ['This week: 550 5.1.1 from mx.example.com for carol@example.com (3 times).'],
    );
    assert.deepEqual(await kinds(list), [[null, 'none', null, null]]);
    const vacation = message(
      ['From: Dan <dan@example.net>', 'To: ada@acme.example', 'Subject: Out of office', 'Auto-Submitted: auto-replied'],
      ['I am out of the office until Monday. Reply code 550 means nothing to me.'],
    );
    assert.deepEqual(await kinds(vacation), [['dan@example.net', 'autoreply', null, 'vacation']]);
  });

  it('gives no result from a report-looking message that quotes no reply or status', async () => {
    const raw = message(['From: MAILER-DAEMON@mx.example.org', 'To: ada@acme.example', 'Subject: Hello', 'Auto-Submitted: auto-generated'], ['Nothing to report.']);
    assert.equal(scanForFailures(await readMimeMessage(raw)), null);
  });
});
