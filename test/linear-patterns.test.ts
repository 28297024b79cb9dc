import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { attackShapes, inputOf, namedAttacks, type AttackShape } from './helpers/regex-attacks.js';
import { patternsUnder, type SourcePattern } from './helpers/regex-literals.js';
import { recordBuiltPatterns } from './helpers/regexp-spy.js';
import { countMatches, cpuMsOf, endsWithin, everywhere, flat, threadCpuMs } from './helpers/linear-time.js';
import { BOUNCE_CORPUS } from './helpers/bounce-corpus.js';

/**
 * No input is slow: every regular expression of src/ (those written as
 * literals, found by scanning the sources, and those built at run time,
 * seen being built) takes at most 50 ms of CPU time on each adversarial
 * input of 1 MB, and so do the public parse entry points on 1 MB adversarial
 * messages. A pattern added tomorrow is in the sweep without being named
 * here; one built at a line the run never reaches fails the sweep until the
 * run reaches it.
 *
 * The inputs of a pattern come from its own shape (helpers/regex-attacks.ts):
 * each shape is first timed at 512 characters, the slowest (of five pumps) and the
 * issue's own (runs of `@`, `<`, spaces, `=?`, nested parentheses) then at
 * 1 MB. A global pattern is run over every match, as matchAll and replace
 * do; the cost of reporting each match (measured with `/x/g`) is not the
 * pattern's, so a run of a million matches is no failure by itself.
 */

const ROOT = join(import.meta.dirname, '..');
const SIZE = 1_000_000;
const LIMIT_MS = 50;
const SCREEN_SIZE = 512;
/** Wall-clock bounds, so that an exponential pattern fails instead of holding the run. */
const SCREEN_WALL_MS = 20_000;
const RUN_WALL_MS = 2_000;

// Before any module of src/ is loaded (every import of src/ below is dynamic): some build patterns as they load.
const spy = recordBuiltPatterns(ROOT, 'src');
const sourcePatterns = patternsUnder(ROOT, ['src']);

interface Pattern {
  name: string;
  regexp: RegExp;
}

/** CPU milliseconds of reading the whole input once per match, less the cost of a match as such; Infinity if it did not end. */
function costOf(pattern: RegExp, input: string, perMatchMs: number): number {
  const global = everywhere(pattern);
  const once = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
  let matches = 0;
  const start = threadCpuMs();
  const ended = pattern.global || pattern.sticky ? endsWithin(() => (matches = countMatches(global, input)), RUN_WALL_MS) : endsWithin(() => once.exec(input), RUN_WALL_MS);
  return ended ? threadCpuMs() - start - matches * perMatchMs : Infinity;
}

const describeShape = ({ prefix, pump, suffix }: AttackShape) => `${JSON.stringify(prefix)} + ${JSON.stringify(pump)}… + ${JSON.stringify(suffix)}`;

/** The slowest shape of each of the `count` pumps whose slowest shapes are slowest (timings sorted, slowest first). */
function slowestOfEachPump(screened: Array<{ shape: AttackShape; ms: number }>, count: number): AttackShape[] {
  const byPump = new Map<string, AttackShape>();
  for (const { shape } of screened) if (!byPump.has(shape.pump) && byPump.size < count) byPump.set(shape.pump, shape);
  return [...byPump.values()];
}

/** The pattern's worst cost over its attacks, and the attack; `ms` Infinity when it did not end. */
function worstCase(pattern: RegExp, perMatchMs: number): { ms: number; attack: string } {
  const shapes = attackShapes(pattern.source, pattern.flags);
  const global = everywhere(pattern);
  const screened: Array<{ shape: AttackShape; ms: number }> = [];
  const screenEnded = endsWithin(() => {
    for (const shape of shapes) {
      const input = inputOf(shape, SCREEN_SIZE);
      const start = performance.now();
      countMatches(global, input);
      screened.push({ shape, ms: performance.now() - start });
    }
  }, SCREEN_WALL_MS);
  if (!screenEnded) return { ms: Infinity, attack: `its ${shapes.length} attacks of ${SCREEN_SIZE} characters` };
  screened.sort((a, b) => b.ms - a.ms);
  const attacks = [
    ...slowestOfEachPump(screened, 5).map((shape) => ({ name: describeShape(shape), input: () => inputOf(shape, SIZE) })),
    ...namedAttacks(SIZE).map(({ name, input }) => ({ name, input: () => input })),
  ];
  let worst = { ms: 0, attack: '' };
  for (const attack of attacks) {
    const ms = costOf(pattern, flat(attack.input()), perMatchMs);
    if (ms > worst.ms) worst = { ms, attack: attack.name };
    if (worst.ms > LIMIT_MS) break;
  }
  return worst;
}

/** What reporting one match costs, the least of a few tries at a million of them. */
function perMatchMs(): number {
  const input = flat('x'.repeat(SIZE));
  let least = Infinity;
  for (const pattern of [/x/g, /(?:)/g, /x/g, /(?:)/g]) {
    const start = threadCpuMs();
    const matches = countMatches(pattern, input);
    least = Math.min(least, (threadCpuMs() - start) / matches);
  }
  return least;
}

/** Files of a directory, whole, in name order. */
async function filesIn(dir: string): Promise<Buffer[]> {
  const names = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
  return Promise.all(names.map((name) => readFile(join(dir, name))));
}

/** The least CPU time of two runs: the first also compiles the code it runs. */
async function leastCpuMs(work: () => Promise<unknown>): Promise<number> {
  return Math.min(await cpuMsOf(work), await cpuMsOf(work));
}

const mail = (headers: string, body: string) => Buffer.from(`From: MAILER-DAEMON@example.net\r\nTo: complaints@mailroom.test\r\nSubject: Undelivered Mail Returned to Sender\r\n${headers}\r\n${body}\r\n`);
const report = (fields: string) =>
  mail(
    'MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\r\n',
    `--b\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.net\r\n\r\n${fields}\r\n--b--`,
  );
const half = SIZE / 2;
/** `text` repeated to 1 MB, in lines of `lineLength` characters: the parser reads a message's first 128 KiB (read-limits.ts). */
const inLines = (text: string, lineLength: number) => {
  const line = text.repeat(Math.ceil(lineLength / text.length)).slice(0, lineLength);
  return `${line}\r\n`.repeat(Math.ceil(SIZE / (lineLength + 2)));
};
/** Runs the readers may meet, each in a body of lines one (100 000 characters), a hundred (1 000) and a thousand (76) of which are read. */
const BODY_RUNS: Record<string, string> = {
  '@': '@', '<': '<', spaces: ' ', '=?': '=?', 'nested parentheses': '((((()))))', 'line-initial Message-ID: and @': 'Message-ID: @@@@@@@@@@@@@@@@@@@@@@@',
  dashes: '-', 'smtp command and dashes': '----- smtp command ', 'address-like words': 'a.', 'bounce+ without @': 'bounce+aaaaaaaaaaaaaaaaaa', 'status codes': '5.',
  'quoted addresses': '<a@b', digits: '0',
};
/** 1 MB messages built to slow a reader down: the issue's, and runs of what the readers look for wherever they look. */
const HOSTILE_MESSAGES: Record<string, Buffer> = {
  'the issue\'s: Message-ID: and 64,000 @, then 1 MB of them': mail('', `Message-ID: ${'@'.repeat(64_000)}\r\n${'@'.repeat(SIZE)}`),
  'the issue\'s, a word after the run of @': mail('', `Message-ID: ${'@'.repeat(64_000)} x\r\n${'@'.repeat(SIZE)}`),
  'a body of line breaks': mail('', '\r\n'.repeat(half)),
  'an HTML body of nested tags': mail('Content-Type: text/html\r\n', inLines('<b>', 100_000)),
  'a DSN whose Final-Recipient is a run of @': report(`Final-Recipient: rfc822; ${'@'.repeat(100_000)}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n${inLines('@', 1_000)}`),
  'a DSN whose Diagnostic-Code is a run of spaces': report(`Final-Recipient: rfc822; a@example.com\r\nAction: failed\r\nStatus: 5.1.1\r\nDiagnostic-Code: smtp; 550${' '.repeat(100_000)}x\r\n\r\n${inLines(' ', 1_000)}`),
  'a subject of =?': mail(`Subject: ${'=?'.repeat(30_000)}\r\n`, inLines('=?', 1_000)),
  'an In-Reply-To of @': mail(`In-Reply-To: ${'@'.repeat(60_000)} x\r\n`, inLines('@', 1_000)),
  'a From of <': Buffer.from(`From: ${'<'.repeat(SIZE)}\r\nTo: complaints@mailroom.test\r\n\r\nx\r\n`),
  'a From of nested parentheses': Buffer.from(`From: ${'('.repeat(half)}${')'.repeat(half)}\r\n\r\nx\r\n`),
  'parts whose heads hold address headers of <': mail('Content-Type: multipart/mixed; boundary=b\r\n', `--b\r\nTo: ${'<'.repeat(4_000)}\r\n\r\nx\r\n`.repeat(SIZE / 4_020)),
};
for (const [name, run] of Object.entries(BODY_RUNS)) {
  for (const lineLength of [100_000, 1_000, 76]) HOSTILE_MESSAGES[`a body of ${name}, in lines of ${lineLength}`] = mail('', inLines(run, lineLength));
}

describe('no input is slow', () => {
  let parseInboundMessage: typeof import('../src/inbound/parse-report.js').parseInboundMessage;
  let perMatch = 0;
  const patterns: Pattern[] = [];

  before(async () => {
    // Load every module that builds patterns at run time, then run what builds the rest: the parser on
    // every bounce at hand, the app's routes (whose paths the 404/405 handler matches).
    const builders = [...new Set(sourcePatterns.filter((p) => !p.literal).map((p) => p.file))];
    for (const file of builders) await import(join(ROOT, file));
    ({ parseInboundMessage } = await import('../src/inbound/parse-report.js'));
    const fixtures = [...(await filesIn(join(BOUNCE_CORPUS, 'emails'))), ...(await filesIn(join(ROOT, 'test', 'fixtures', 'inbound')))];
    for (const raw of fixtures) await parseInboundMessage(raw);
    for (const raw of Object.values(HOSTILE_MESSAGES)) await parseInboundMessage(raw);
    const { createTestApp } = await import('./helpers/test-app.js');
    await (await createTestApp()).close();
    spy.stop();

    perMatch = perMatchMs();
    const seen = new Set<string>();
    const add = (name: string, regexp: RegExp) => {
      const key = `/${regexp.source}/${regexp.flags}`;
      if (seen.has(key)) return;
      seen.add(key);
      patterns.push({ name: `${name} ${key}`, regexp });
    };
    for (const { file, line, literal } of sourcePatterns) if (literal) add(`${file}:${line}`, new RegExp(literal.source, literal.flags));
    for (const { site, source, flags } of spy.built.values()) add(site, new RegExp(source, flags));
  });
  after(() => spy.stop());

  it('finds the patterns of src/: the literals in the sources, and each RegExp built at run time, seen built', () => {
    assert.ok(sourcePatterns.filter((p) => p.literal).length > 200, 'the scan finds the literals of src/');
    const sites = sourcePatterns.filter((p: SourcePattern) => !p.literal).map((p) => `${p.file}:${p.line}`);
    const seenSites = new Set([...spy.built.values()].map((b) => b.site));
    // A pattern built across lines is seen at a line of the call: any line from the call's first up to its next.
    const unseen = sites.filter((site) => {
      const [file, line] = [site.slice(0, site.lastIndexOf(':')), Number(site.slice(site.lastIndexOf(':') + 1))];
      return ![...seenSites].some((s) => s.startsWith(`${file}:`) && Math.abs(Number(s.slice(file.length + 1)) - line) <= 2);
    });
    assert.deepEqual(unseen, [], 'each of these builds a RegExp the test never saw built, so it cannot try it: make the test reach it, or write it as a literal');
  });

  it(`runs every pattern of src/ under ${LIMIT_MS} ms of CPU on each adversarial input of 1 MB`, (t) => {
    const slow: string[] = [];
    let slowest = { ms: 0, name: '' };
    for (const { name, regexp } of patterns) {
      const { ms, attack } = worstCase(regexp, perMatch);
      if (ms > slowest.ms) slowest = { ms, name: `${name} on ${attack}` };
      if (ms > LIMIT_MS) slow.push(`${name}: ${Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'did not end'} on ${attack}`);
    }
    t.diagnostic(`${patterns.length} patterns; the slowest took ${slowest.ms.toFixed(1)} ms: ${slowest.name}`);
    assert.ok(patterns.length > 220, `swept ${patterns.length} patterns`);
    assert.deepEqual(slow, []);
  });

  it(`reads each 1 MB adversarial message in under ${LIMIT_MS} ms of CPU (parseInboundMessage)`, async (t) => {
    const slow: string[] = [];
    const times: string[] = [];
    for (const [name, raw] of Object.entries(HOSTILE_MESSAGES)) {
      assert.ok(raw.length >= SIZE * 0.99, `${name} is 1 MB`);
      const ms = await leastCpuMs(() => parseInboundMessage(raw));
      times.push(`${name} ${ms.toFixed(1)} ms`);
      if (ms > LIMIT_MS) slow.push(`${name}: ${ms.toFixed(1)} ms`);
    }
    t.diagnostic(times.join('; '));
    assert.deepEqual(slow, []);
  });

  it(`takes each 1 MB adversarial address and header value in under ${LIMIT_MS} ms of CPU (the address and header parsers)`, async () => {
    const { parseMailbox } = await import('../src/lib/email-address.js');
    const { parseCustomHeaders } = await import('../src/sending/custom-headers.js');
    const values = namedAttacks(SIZE).map(({ name, input }) => ({ name, input }));
    values.push({ name: 'a name of spaces before no address', input: `a${' '.repeat(SIZE)}b` });
    values.push({ name: 'a quoted name never closed', input: `"${'\\"'.repeat(half)}` });
    const slow: string[] = [];
    for (const { name, input } of values) {
      const mailbox = await leastCpuMs(async () => parseMailbox(input));
      if (mailbox > LIMIT_MS) slow.push(`parseMailbox, ${name}: ${mailbox.toFixed(1)} ms`);
      const header = await leastCpuMs(async () => assert.throws(() => parseCustomHeaders({ 'X-Test': input })));
      if (header > LIMIT_MS) slow.push(`parseCustomHeaders, ${name}: ${header.toFixed(1)} ms`);
    }
    assert.deepEqual(slow, []);
  });
});
