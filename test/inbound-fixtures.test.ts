import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { formatParsedFiles, parseInboundFiles } from '../src/inbound/parse-files.js';
import { messageIdFromReturnPath, parseInboundMessage, type ParsedReport } from '../src/inbound/parse-report.js';

/**
 * Messages of our own, kept apart from the shared corpus (which is light on
 * complaints and ordinary mail): RFC 5965's example reports, reports shaped
 * like the large mailbox providers', replies written by people, an RFC 3834
 * vacation notice, and Postfix/Exim/SES reports about Mailroom's own VERP
 * return paths (`bounce+<message id>@mr-bounces.<domain>`).
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'inbound');
const fixture = (name: string) => readFile(join(FIXTURES, name));
const parse = async (name: string) => parseInboundMessage(await fixture(name));

const none = { recipient: null, kind: 'none', status: null, diagnostic: null, feedback_type: null, reason: null } as const;

const EXPECTED: Record<string, ParsedReport> = {
  // RFC 5965 Appendix B.1: no Original-Rcpt-To, the returned To is "Undisclosed Recipients"; the Message-ID is written bare.
  'rfc5965-simple-report.eml': {
    results: [{ recipient: null, kind: 'complaint', status: null, diagnostic: null, feedback_type: 'abuse', reason: 'feedback' }],
    originalMessageId: '<8787KJKJ3K4J3K4J3K4J3.mail@example.net>',
    envelopeId: null,
    returnPaths: [],
  },
  // RFC 5965 Appendix B.2: Original-Rcpt-To and Removal-Recipient name the same user once.
  'rfc5965-complex-report.eml': {
    results: [{ recipient: 'user@example.com', kind: 'complaint', status: null, diagnostic: null, feedback_type: 'abuse', reason: 'feedback' }],
    originalMessageId: '<8787KJKJ3K4J3K4J3K4J3.mail@example.net>',
    envelopeId: null,
    returnPaths: [],
  },
  // Yahoo's complaint feedback loop: the VERP Original-Mail-From carries the message id.
  'yahoo-arf-complaint.eml': {
    results: [{ recipient: 'grace.hopper@yahoo.example', kind: 'complaint', status: null, diagnostic: null, feedback_type: 'abuse', reason: 'feedback' }],
    originalMessageId: '<msg_01def@acme.example>',
    envelopeId: 'msg_01def',
    returnPaths: ['bounce+msg_01def@mr-bounces.acme.example'],
  },
  // AOL redacts the complaining recipient: none is claimed; the returned headers still correlate.
  'aol-arf-redacted.eml': {
    results: [{ recipient: null, kind: 'complaint', status: null, diagnostic: null, feedback_type: 'abuse', reason: 'feedback' }],
    originalMessageId: '<msg_01mno@acme.example>',
    envelopeId: 'msg_01mno',
    returnPaths: ['bounce+msg_01mno@mr-bounces.acme.example'],
  },
  // Microsoft JMRP: no feedback-report part; X-HmXmrOriginalRecipient names the recipient.
  'microsoft-jmrp-complaint.eml': {
    results: [{ recipient: 'katherine.johnson@outlook.example', kind: 'complaint', status: null, diagnostic: null, feedback_type: 'abuse', reason: 'feedback' }],
    originalMessageId: '<msg_01jkl@acme.example>',
    envelopeId: 'msg_01jkl',
    returnPaths: ['bounce+msg_01jkl@mr-bounces.acme.example'],
  },
  // A person's reply that happens to say "could not be delivered" and "undeliverable".
  'reply-plain.eml': { results: [none], originalMessageId: '<msg_01abc@acme.example>', envelopeId: null, returnPaths: [] },
  // An Outlook reply, text and HTML, that says "rejected".
  'reply-html-outlook.eml': { results: [none], originalMessageId: '<msg_01pqr@acme.example>', envelopeId: null, returnPaths: [] },
  // A mailing-list reply about bounces, with a bounce-like subject and a postmaster address on a line of its own.
  'reply-mailing-list.eml': { results: [none], originalMessageId: '<msg_01stu@acme.example>', envelopeId: null, returnPaths: [] },
  // RFC 3834 vacation notice, sent to the VERP return path.
  'vacation-autoreply.eml': {
    results: [{ recipient: 'ada@example.com', kind: 'autoreply', status: null, diagnostic: 'Auto-Submitted: auto-replied (vacation)', feedback_type: null, reason: 'vacation' }],
    originalMessageId: '<msg_01ghi@acme.example>',
    envelopeId: null,
    returnPaths: [],
  },
  // Postfix's success DSN when the next hop speaks no DSN (Action: relayed), with ENVID and RET=HDRS.
  'postfix-relayed-success.eml': {
    results: [{ recipient: 'ada@example.com', kind: 'delivered', status: '2.0.0', diagnostic: '250 2.0.0 Ok: queued as 4SgQ0Z3bKjz1y', feedback_type: null, reason: 'delivered' }],
    originalMessageId: '<msg_01abc@acme.example>',
    envelopeId: 'msg_01abc',
    returnPaths: ['bounce+msg_01abc@mr-bounces.acme.example'],
  },
  // Postfix's bounce to the VERP return path: one recipient of two refused at RCPT.
  'postfix-bounce-verp.eml': {
    results: [
      {
        recipient: 'grace@example.net',
        kind: 'hard_bounce',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <grace@example.net>: Recipient address rejected: User unknown in virtual mailbox table',
        feedback_type: null,
        reason: 'userunknown',
      },
    ],
    originalMessageId: '<msg_01abc@acme.example>',
    envelopeId: 'msg_01abc',
    returnPaths: ['bounce+msg_01abc@mr-bounces.acme.example'],
  },
  // Exim's plain-text bounce (no DSN, no ENVID): the copy of the message gives Message-ID and the VERP Return-path.
  'exim-bounce-verp.eml': {
    results: [
      {
        recipient: 'no-such-user@example.org',
        kind: 'hard_bounce',
        status: '5.1.1',
        diagnostic:
          'host mail.internal.example.org [192.0.2.55] SMTP error from remote mail server after RCPT TO:<no-such-user@example.org>: ' +
          '550 5.1.1 <no-such-user@example.org>: Recipient address rejected: User unknown in local recipient table',
        feedback_type: null,
        reason: 'userunknown',
      },
    ],
    originalMessageId: '<msg_01vwx@acme.example>',
    envelopeId: 'msg_01vwx',
    returnPaths: ['bounce+msg_01vwx@mr-bounces.acme.example'],
  },
  // An Amazon SES bounce notification delivered by SNS as e-mail.
  'ses-bounce-notification.eml': {
    results: [{ recipient: 'lin@example.com', kind: 'hard_bounce', status: '5.1.1', diagnostic: '550 5.1.1 user unknown', feedback_type: null, reason: 'userunknown' }],
    originalMessageId: '<msg_01yz1@acme.example>',
    envelopeId: null,
    returnPaths: [],
  },
};

describe('inbound parser fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(name, async () => {
      assert.deepEqual(await parse(name), expected);
    });
  }

  it('reads the same message with CRLF line ends alike', async () => {
    const lf = (await fixture('postfix-bounce-verp.eml')).toString('utf8');
    const crlf = Buffer.from(lf.replace(/\n/g, '\r\n'));
    assert.deepEqual(await parseInboundMessage(crlf), EXPECTED['postfix-bounce-verp.eml']);
  });

  it('reads a not-spam or auth-failure feedback report as the feedback report it is, with its type (the service acts on neither)', async () => {
    const complex = (await fixture('rfc5965-complex-report.eml')).toString('utf8');
    for (const type of ['not-spam', 'auth-failure']) {
      const report = await parseInboundMessage(Buffer.from(complex.replace('Feedback-Type: abuse', `Feedback-Type: ${type}`)));
      assert.deepEqual(report.results, [{ recipient: 'user@example.com', kind: 'complaint', status: null, diagnostic: null, feedback_type: type, reason: 'feedback' }]);
    }
  });

  it('makes a delay warning a soft bounce whatever it says', async () => {
    const bounce = (await fixture('postfix-bounce-verp.eml')).toString('utf8');
    const delayed = bounce.replace('Action: failed', 'Action: delayed').replace(/Status: 5\.1\.1/, 'Status: 4.4.1');
    const report = await parseInboundMessage(Buffer.from(delayed));
    assert.equal(report.results[0]?.kind, 'soft_bounce');
  });

  it('does not take a person writing from postmaster@ for a bounce', async () => {
    const reply = [
      'From: Postmaster <postmaster@example.org>',
      'Subject: Re: your question',
      'In-Reply-To: <msg_01abc@acme.example>',
      '',
      'Hi, yes, we have added your sending address to our allow list.',
      '',
      'bob@example.org',
      '',
    ].join('\n');
    assert.deepEqual(await parseInboundMessage(Buffer.from(reply)), { results: [none], originalMessageId: '<msg_01abc@acme.example>', envelopeId: null, returnPaths: [] });
  });

  it('reads the message id out of a VERP return path', () => {
    assert.equal(messageIdFromReturnPath('bounce+msg_01abc@mr-bounces.acme.example'), 'msg_01abc');
    assert.equal(messageIdFromReturnPath('<Bounce+msg_01ABC@mr-bounces.acme.example>'), 'msg_01ABC');
    assert.equal(messageIdFromReturnPath('postmaster@acme.example'), null);
  });
});

describe('inbound parse (the CLI function)', () => {
  it('parses each file and prints one JSON line per file', async () => {
    const files = [join(FIXTURES, 'postfix-bounce-verp.eml'), join(FIXTURES, 'reply-plain.eml')];
    const parsed = await parseInboundFiles(files);
    const lines = formatParsedFiles(parsed, true).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
    assert.deepEqual(lines, [
      { file: files[0], results: EXPECTED['postfix-bounce-verp.eml']!.results },
      { file: files[1], results: [none] },
    ]);
    assert.deepEqual(Object.keys((lines[0] as { results: object[] }).results[0]!), ['recipient', 'kind', 'status', 'diagnostic', 'feedback_type', 'reason']);
  });

  it('reports a file it cannot read and goes on with the others', async () => {
    const missing = join(FIXTURES, 'no-such-file.eml');
    const parsed = await parseInboundFiles([missing, join(FIXTURES, 'vacation-autoreply.eml')]);
    assert.equal(parsed[0]?.file, missing);
    assert.deepEqual(parsed[0]?.results, []);
    assert.match(parsed[0]?.error ?? '', /ENOENT/);
    assert.equal(parsed[1]?.results[0]?.kind, 'autoreply');
  });

  it('prints a readable summary without --json', async () => {
    const text = formatParsedFiles(await parseInboundFiles([join(FIXTURES, 'postfix-bounce-verp.eml')]), false);
    assert.match(text, /postfix-bounce-verp\.eml\n  hard_bounce {2}grace@example\.net {2}5\.1\.1\n {4}550 5\.1\.1 <grace@example\.net>: Recipient address rejected/);
  });
});
