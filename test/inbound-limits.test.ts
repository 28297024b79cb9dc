/**
 * The inbound receiver's bounds, over real SMTP: connections per client
 * (an IPv4 address; 127.0.0.2 is another client of the loopback), reports
 * parsed at once, and the parts of a message the parser reads.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { clientNetworkOf } from '../src/lib/client-network.js';
import {
  INBOUND_MAX_CONNECTIONS_PER_CLIENT,
  INBOUND_MAX_PARSING,
  startInboundReceiver,
  type InboundReceiver,
} from '../src/inbound/inbound-receiver.js';
import { parseInboundMessage } from '../src/inbound/parse-report.js';
import { ADDRESS_HEADER_BYTES, REPORT_READ_BYTES, REPORT_READ_LINES } from '../src/inbound/read-limits.js';
import { createThreadedReportParser, ParserUnavailableError, type ReportParse } from '../src/inbound/threaded-report-parser.js';
import { createInboundReportService } from '../src/inbound/inbound-report-service.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { waitFor } from './helpers/wait-for.js';

const silent = { info() {}, warn() {}, error() {} };
const COMPLAINTS = 'complaints@mailroom.test';
const settings = { port: 0, host: '127.0.0.1', complaintAddress: COMPLAINTS };
const FIXTURES = join(import.meta.dirname, 'fixtures', 'inbound');

/** A connection to the receiver from `localAddress`, and the first reply it got (the greeting, or a refusal). */
async function open(port: number, localAddress: string): Promise<{ socket: Socket; greeting: string }> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  const greeting = await new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (/\r\n$/.test(text)) resolve(text);
    });
    socket.once('error', reject);
  });
  return { socket, greeting };
}

/** Sends `raw` to the complaint address from `localAddress`, as an MTA would; resolves with the reply to its DATA. */
async function deliver(port: number, raw: string | Buffer, localAddress = '127.0.0.1'): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, localAddress });
  try {
    return (await transport.sendMail({ envelope: { from: '', to: [COMPLAINTS] }, raw })).response;
  } catch (error) {
    return (error as { response?: string }).response ?? String(error);
  } finally {
    transport.close();
  }
}

describe('the inbound receiver, bounded', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it(`takes at most ${INBOUND_MAX_CONNECTIONS_PER_CLIENT} connections from one client, and still every other client's`, async () => {
    const receiver = await startInboundReceiver(settings, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < INBOUND_MAX_CONNECTIONS_PER_CLIENT; i++) {
        const { socket, greeting } = await open(receiver.port, '127.0.0.1');
        sockets.push(socket);
        assert.match(greeting, /^220 /, `connection ${i + 1} is greeted`);
      }
      const refused = await open(receiver.port, '127.0.0.1');
      sockets.push(refused.socket);
      assert.match(refused.greeting, /^421 4\.7\.0 Too many connections from your address \(at most 10\)/);
      const other = await open(receiver.port, '127.0.0.2');
      sockets.push(other.socket);
      assert.match(other.greeting, /^220 /, 'another client is not locked out');

      // A connection that ends gives its place back.
      sockets[0]!.destroy();
      await waitFor(() => receiver.state().connections === INBOUND_MAX_CONNECTIONS_PER_CLIENT, 'the closed connection counted out');
      const again = await open(receiver.port, '127.0.0.1');
      sockets.push(again.socket);
      assert.match(again.greeting, /^220 /);
    } finally {
      for (const socket of sockets) socket.destroy();
      await receiver.close();
    }
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as the IPv4 client', () => {
    assert.equal(clientNetworkOf('2001:db8:1:2::9'), clientNetworkOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd'));
    assert.notEqual(clientNetworkOf('2001:db8:1:2::9'), clientNetworkOf('2001:db8:1:3::9'));
    assert.equal(clientNetworkOf('::ffff:192.0.2.1'), '192.0.2.1');
  });

  it(`parses at most ${INBOUND_MAX_PARSING} reports at once, the others waiting their turn, and answers each once recorded`, async () => {
    const parser = createThreadedReportParser();
    let inFlight = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // The real parser thread, each parse held until the test has seen how many run at once.
    const parse: ReportParse = async (head) => {
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        await gate;
        return await parser(head);
      } finally {
        inFlight--;
      }
    };
    const service = createInboundReportService(t.store, t.returnPaths);
    const receiver = await startInboundReceiver(settings, service.recordReceived, silent, t.returnPaths, { parse });
    try {
      const complaint = readFileSync(join(FIXTURES, 'yahoo-arf-complaint.eml'), 'utf8');
      const reports = Array.from({ length: 12 }, (_, i) => `X-Copy: ${i}\r\n${complaint}`);
      const replies = Promise.all(reports.map((raw, i) => deliver(receiver.port, raw, i % 2 ? '127.0.0.1' : '127.0.0.2')));
      await waitFor(() => receiver.state().parsing === INBOUND_MAX_PARSING && receiver.state().waiting === reports.length - INBOUND_MAX_PARSING, () => `4 parsing and 8 waiting (${JSON.stringify(receiver.state())})`);
      assert.equal(inFlight, INBOUND_MAX_PARSING, 'no more parses started than the receiver lets run');
      open();
      for (const reply of await replies) assert.match(reply, /^250 2\.0\.0 Report (recorded|ignored)/);
      assert.equal(most, INBOUND_MAX_PARSING);
      assert.deepEqual({ parsing: receiver.state().parsing, waiting: receiver.state().waiting }, { parsing: 0, waiting: 0 });
      await waitFor(() => receiver.state().connections === 0, 'every connection counted out once closed');
    } finally {
      await receiver.close();
      await parser.close();
    }
  });

  it('counts the size of a message as it arrives: past 10 MiB the rest is dropped, 552, and nothing is parsed', async () => {
    let parses = 0;
    const parser = createThreadedReportParser();
    const counted: ReportParse = (head) => {
      parses++;
      return parser(head);
    };
    const receiver = await startInboundReceiver(settings, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths, { parse: counted });
    try {
      // No SIZE in MAIL FROM: only the bytes themselves show how big the message is.
      const { socket } = await open(receiver.port, '127.0.0.1');
      const replies: string[] = [];
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString();
        for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
          replies.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      });
      socket.write(`EHLO mta.example.net\r\nMAIL FROM:<>\r\nRCPT TO:<${COMPLAINTS}>\r\nDATA\r\n`);
      await waitFor(() => replies.some((line) => line.startsWith('354')), 'the go-ahead for the data');
      const line = `${'x'.repeat(1022)}\r\n`;
      for (let i = 0; i < 11 * 1024; i++) if (!socket.write(line)) await new Promise((resolve) => socket.once('drain', resolve));
      socket.write('.\r\n');
      const answer = await waitFor(() => replies.find((reply) => /^5\d\d /.test(reply)), 'the answer to the data');
      socket.destroy();
      assert.match(answer, /^552 5\.3\.4 Message too big \(at most 10485760 bytes\)/);
      assert.equal(parses, 0);
    } finally {
      await receiver.close();
      await parser.close();
    }
  });

  it('answers 451 when the parser fails, so the sender keeps the report and retries', async () => {
    const failing: ReportParse = async () => Promise.reject(new ParserUnavailableError('The report parser thread exited (code 1)'));
    const receiver = await startInboundReceiver(settings, createInboundReportService(t.store, t.returnPaths).recordReceived, silent, t.returnPaths, { parse: failing });
    try {
      assert.match(await deliver(receiver.port, readFileSync(join(FIXTURES, 'yahoo-arf-complaint.eml'))), /^451 4\.3\.0 Temporary failure/);
    } finally {
      await receiver.close();
    }
  });
});

describe('what the parser reads of a message', () => {
  it('reads on its thread what it reads on the calling one', async () => {
    const parser = createThreadedReportParser();
    try {
      for (const name of ['postfix-bounce-verp.eml', 'yahoo-arf-complaint.eml', 'vacation-autoreply.eml']) {
        const raw = readFileSync(join(FIXTURES, name));
        assert.deepEqual((await parser(raw)).report, await parseInboundMessage(raw), name);
      }
    } finally {
      await parser.close();
    }
  });

  it('ends the thread of a parse that overruns its deadline, failing every report it held', async () => {
    const raw = readFileSync(join(FIXTURES, 'postfix-bounce-verp.eml'));
    // A thread's start (tsx registers itself in it here) alone takes longer than a millisecond.
    const hurried = createThreadedReportParser({ deadlineMs: 1 });
    try {
      await assert.rejects(Promise.all([hurried(raw), hurried(raw)]), (error: Error) => error instanceof ParserUnavailableError && /took over 1 ms to parse/.test(error.message));
    } finally {
      await hurried.close();
    }
  });

  it(`reads the first ${REPORT_READ_BYTES / 1024} KiB and ${REPORT_READ_LINES} lines of a message, the whole report before the rest`, async () => {
    const bounce = readFileSync(join(FIXTURES, 'postfix-bounce-verp.eml'), 'utf8');
    const expected = await parseInboundMessage(Buffer.from(bounce));
    assert.equal(expected.results[0]?.kind, 'hard_bounce');
    // The returned message grown past the limits (its body, after the headers the parser needs) changes nothing.
    const longer = `${bounce.trimEnd()}\n${'a line of the returned message\n'.repeat(REPORT_READ_LINES * 2)}${'x'.repeat(REPORT_READ_BYTES)}\n`;
    assert.deepEqual((await parseInboundMessage(Buffer.from(longer))).results, expected.results);
    // What comes after them is not read: the same report, pushed past them, is ordinary mail.
    const pushed = `From: MAILER-DAEMON@example.net\nSubject: Undelivered Mail Returned to Sender\n\n${'\n'.repeat(REPORT_READ_LINES)}${bounce}`;
    assert.equal((await parseInboundMessage(Buffer.from(pushed))).results[0]?.kind, 'none');
  });

  it(`takes a message whose address headers hold over ${ADDRESS_HEADER_BYTES / 1024} KiB for unreadable ordinary mail, at once`, async () => {
    const raw = Buffer.from(`From: MAILER-DAEMON@example.net\r\nTo: ${'<'.repeat(ADDRESS_HEADER_BYTES)}\r\nSubject: Undelivered Mail\r\n\r\n550 5.1.1 user unknown\r\n`);
    const parsed = await parseInboundMessage(raw);
    assert.equal(parsed.results[0]?.kind, 'none');
    assert.match(parsed.unreadable ?? '', /address headers hold \d+ bytes, more than the 16384 any report writes/);
  });
});
