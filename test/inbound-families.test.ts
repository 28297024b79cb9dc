import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseInboundMessage } from '../src/inbound/parse-report.js';
import type { InboundResult } from '../src/inbound/types.js';

/**
 * One test per family of bounce and complaint layouts the parser reads,
 * each on a message written for it (test/fixtures/inbound/, our own
 * addresses and hosts) after what the MTA or service is documented or known
 * to write: the layout, the wording, the fields. What is asserted is what a
 * consumer acts on, per recipient: who, what kind, the status code, the
 * reason and, for complaints, the feedback type.
 */

type Expected = Pick<InboundResult, 'recipient' | 'kind' | 'status' | 'reason'> & { feedback_type?: string | null };

const FIXTURES = join(import.meta.dirname, 'fixtures', 'inbound');

async function resultsOf(name: string): Promise<Expected[]> {
  const { results } = await parseInboundMessage(await readFile(join(FIXTURES, name)));
  return results.map((r) => ({ recipient: r.recipient, kind: r.kind, status: r.status, reason: r.reason, ...(r.feedback_type ? { feedback_type: r.feedback_type } : {}) }));
}

const hard = (recipient: string, status: string | null, reason = 'userunknown'): Expected => ({ recipient, kind: 'hard_bounce', status, reason } as Expected);
const soft = (recipient: string, status: string | null, reason: string): Expected => ({ recipient, kind: 'soft_bounce', status, reason } as Expected);

const FAMILIES: Array<{ family: string; fixture: string; expected: Expected[] }> = [
  {
    family: 'Domino: "was not delivered to … because", a DSN with a bare 5.0.0; the directory\'s words name the reason',
    fixture: 'domino-delivery-failure.eml',
    expected: [hard('marie.curie@example.net', '5.0.0'), soft('pierre.curie@example.net', '5.0.0', 'filtered')],
  },
  {
    family: 'Lotus Notes: "Undeliverable message", a failure reason above the address',
    fixture: 'notes-undeliverable-message.eml',
    expected: [hard('hedy.lamarr@example.org', null)],
  },
  {
    family: 'PowerMTA: X-PowerMTA-BounceCategory decides over a vague reply',
    fixture: 'powermta-bounce-categories.eml',
    expected: [hard('grace.hopper@example.com', '5.0.0'), soft('alan.turing@example.net', '5.2.2', 'mailboxfull'), soft('ada.byron@example.org', '5.0.0', 'policyviolation')],
  },
  {
    family: 'Symantec MessageLabs: "542 <address> Rejected" is an unknown recipient; a 4xx is soft',
    fixture: 'messagelabs-recipient-rejected.eml',
    expected: [hard('katherine.johnson@example.com', '5.0.0'), soft('dorothy.vaughan@example.com', '4.0.0', 'toomanyconn')],
  },
  {
    family: 'Verizon vtext.com: the error after "Error:", the recipient under "RCPT TO:"',
    fixture: 'verizon-vtext-no-such-user.eml',
    expected: [hard('5550100123@vtext.com', null)],
  },
  {
    family: 'Verizon vzwpix.com: "No valid recipients for this MM", the recipient in the quoted To',
    fixture: 'verizon-vzwpix-no-valid-recipients.eml',
    expected: [hard('5550100456@vzwpix.com', null)],
  },
  {
    family: 'Trend Micro InterScan: Sent <<< / Received >>> transcript, one recipient hard, one soft',
    fixture: 'interscan-session-transcript.eml',
    expected: [hard('sakura.tanaka@example.co.jp', '5.1.1'), soft('kenji.sato@example.co.jp', '4.2.2', 'mailboxfull')],
  },
  {
    family: 'Trend Micro: "Unable to deliver message to <…>" from its own directory',
    fixture: 'trendmicro-unable-to-deliver.eml',
    expected: [hard('lise.meitner@example.com', null)],
  },
  {
    family: 'IMail Server: "Unknown user: <address>"',
    fixture: 'imail-unknown-user.eml',
    expected: [hard('rosalind.franklin@example.org', null)],
  },
  {
    family: 'qmail: four recipients, unknown user and host hard, a full mailbox and a queue timeout soft',
    fixture: 'qmail-mixed-recipients.eml',
    expected: [
      hard('emmy.noether@example.net', '5.1.1'),
      hard('sophie.germain@example.invalid', '5.1.2', 'hostunknown'),
      soft('mary.somerville@example.org', '5.2.2', 'mailboxfull'),
      soft('caroline.herschel@example.com', '4.4.2', 'expired'),
    ],
  },
  {
    family: 'Exim: a DSN of bare 5.0.0s, each recipient\'s reason in the text ("retry timeout exceeded" is soft)',
    fixture: 'exim-mixed-recipients.eml',
    expected: [hard('ida.noddack@example.org', '5.1.1'), soft('chien.wu@example.org', '5.0.0', 'expired'), hard('barbara.mcclintock@nowhere.example.org', '5.0.0', 'hostunknown')],
  },
  {
    family: 'Sendmail V5: a transcript of four recipients, one of them refused for now (452)',
    fixture: 'v5sendmail-four-recipients.eml',
    expected: [hard('hana@example.com', null), hard('yuki@example.com', null), soft('mei@example.com', null, 'mailboxfull'), hard('rin@example.com', null)],
  },
  {
    family: 'Amazon SES bounce forwarded as mail: SNS envelope, lines broken by sendmail; Permanent is not hard by itself',
    fixture: 'ses-forwarded-bounce-folded.eml',
    expected: [soft('tu.youyou@example.com', '5.7.1', 'spamdetected'), hard('chien-shiung@example.net', '5.1.1')],
  },
  {
    family: 'Amazon SES complaint as a JSON attachment',
    fixture: 'ses-complaint-json-attachment.eml',
    expected: [{ recipient: 'vera.rubin@example.org', kind: 'complaint', status: null, reason: 'feedback', feedback_type: 'abuse' }],
  },
  {
    family: 'ARF variant: the feedback fields in a text/plain part, the original as text',
    fixture: 'arf-fields-in-text-part.eml',
    expected: [{ recipient: 'annie.cannon@example.net', kind: 'complaint', status: null, reason: 'feedback', feedback_type: 'abuse' }],
  },
  {
    family: 'ARF variant: an abuse desk\'s report written in the body itself',
    fixture: 'arf-report-in-body.eml',
    expected: [{ recipient: 'henrietta.leavitt@isp.example.org', kind: 'complaint', status: null, reason: 'feedback', feedback_type: 'fraud' }],
  },
  {
    family: 'X5 (unnamed): a notice to "NotificationRecipients" wrapping the real multipart/report',
    fixture: 'x5-wrapped-report.eml',
    expected: [hard('michiko.ito@example.jp', '5.1.1')],
  },
  {
    family: 'X6 (unnamed): "We had trouble delivering your message", the reply in brackets',
    fixture: 'x6-trouble-delivering.eml',
    expected: [hard('chika.okafor@example.net', '5.1.1'), soft('ngozi.eze@example.org', '4.2.2', 'mailboxfull')],
  },
  {
    family: 'RFC 3464: two successful deliveries are two deliveries',
    fixture: 'rfc3464-two-delivered.eml',
    expected: [
      { recipient: 'nettie.stevens@example.com', kind: 'delivered', status: '2.0.0', reason: 'delivered' },
      { recipient: 'barbara.liskov@example.com', kind: 'delivered', status: '2.0.0', reason: 'delivered' },
    ],
  },
];

describe('inbound families, each on a message written for it', () => {
  for (const { family, fixture, expected } of FAMILIES) {
    it(family, async () => {
      assert.deepEqual(await resultsOf(fixture), expected);
    });
  }
});
