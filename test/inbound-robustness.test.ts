import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseInboundMessage } from '../src/inbound/parse-report.js';
import { BOUNCE_CORPUS, expectedByFile } from './helpers/bounce-corpus.js';

/**
 * The parser never throws and never dawdles, whatever the bytes: every
 * corpus message is mutated the ways mail gets damaged on its way (cut
 * short, bytes flipped or inserted, line ends mixed, 8-bit bytes in the
 * headers, a charset that lies, a MIME boundary cut), deterministically
 * (a seeded generator: a failure names its seed, file and mutation, and
 * reproduces), and each mutant must parse to a result in bounded time.
 *
 * Time is the CPU time the parse takes (process.cpuUsage), not the wall
 * clock: the suite runs test files side by side on a shared machine, and a
 * parse descheduled for another process has not taken longer itself.
 */

const SEED = 20_261_120;
/** p99 of the time to parse one message, in milliseconds (the bound). */
const P99_LIMIT_MS = 50;

/** mulberry32: a small seeded generator, enough to pick positions and bytes. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (raw: Buffer, random: () => number) => Buffer;
const at = (raw: Buffer, random: () => number) => Math.floor(random() * Math.max(raw.length, 1));

const MUTATIONS: Record<string, Mutation> = {
  truncate: (raw, random) => raw.subarray(0, at(raw, random)),
  'flip bytes': (raw, random) => {
    const copy = Buffer.from(raw);
    for (let i = 0; i < 1 + copy.length / 200; i++) copy[at(copy, random)] = Math.floor(random() * 256);
    return copy;
  },
  'insert bytes': (raw, random) => {
    const where = at(raw, random);
    const junk = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
    return Buffer.concat([raw.subarray(0, where), junk, raw.subarray(where)]);
  },
  'mix CRLF and LF': (raw, random) => Buffer.from(raw.toString('latin1').replace(/\r?\n/g, () => (random() < 0.5 ? '\r\n' : random() < 0.5 ? '\n' : '\r')), 'latin1'),
  '8-bit headers': (raw) => {
    const text = raw.toString('latin1');
    const end = text.search(/\r?\n\r?\n/);
    const headers = (end < 0 ? text : text.slice(0, end)).replace(/^(Subject|From|To):/gim, '$1: \xe9\xff\xc3\x28 ');
    return Buffer.from(headers + (end < 0 ? '' : text.slice(end)), 'latin1');
  },
  'wrong charset': (raw, random) => {
    const charsets = ['iso-2022-jp', 'x-no-such-charset', 'utf-16', 'shift_jis', 'utf-8'];
    return Buffer.from(raw.toString('latin1').replace(/charset="?[\w-]+"?/gi, () => `charset=${charsets[Math.floor(random() * charsets.length)]}`), 'latin1');
  },
  'cut MIME boundary': (raw, random) => {
    const text = raw.toString('latin1');
    const boundaries = [...text.matchAll(/^--[^\r\n]+$/gm)];
    if (!boundaries.length) return raw.subarray(0, Math.floor(raw.length / 2));
    const cut = boundaries[Math.floor(random() * boundaries.length)]!;
    const line = cut[0];
    return Buffer.from(text.slice(0, cut.index) + line.slice(0, Math.max(2, Math.floor(line.length / 2))) + text.slice(cut.index! + line.length), 'latin1');
  },
};

test('mutated corpus messages never make the parser throw, and parse within bounded time', async (t) => {
  const files = [...(await expectedByFile()).keys()];
  assert.ok(files.length >= 150, `the corpus holds about 200 messages (found ${files.length} in ${BOUNCE_CORPUS})`);
  // The first parse loads mailparser and its charset tables: not a message's cost.
  await parseInboundMessage(Buffer.from('Subject: warm-up\n\nhello\n'));

  const random = generator(SEED);
  const timings: number[] = [];
  const failures: string[] = [];
  for (const file of files) {
    const original = await readFile(join(BOUNCE_CORPUS, file));
    for (const [name, mutate] of Object.entries(MUTATIONS)) {
      const mutant = mutate(original, random);
      const started = process.cpuUsage();
      try {
        const report = await parseInboundMessage(mutant);
        assert.ok(report.results.length >= 1, 'at least one result');
        // The parser's own safety net caught something: a reader failed on these bytes.
        if (report.unreadable) failures.push(`${file} (${name}): unreadable: ${report.unreadable}`);
      } catch (error) {
        failures.push(`${file} (${name}): ${error instanceof Error ? error.message : String(error)}`);
      }
      const spent = process.cpuUsage(started);
      timings.push((spent.user + spent.system) / 1000);
    }
  }

  timings.sort((a, b) => a - b);
  const p99 = timings[Math.floor(timings.length * 0.99)]!;
  const report = `${timings.length} mutants (seed ${SEED}), CPU time per parse: p50 ${timings[Math.floor(timings.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${timings[timings.length - 1]!.toFixed(1)} ms`;
  t.diagnostic(report);
  assert.deepEqual(failures, [], 'no mutant makes the parser throw');
  assert.ok(p99 < P99_LIMIT_MS, `p99 parse time ${p99.toFixed(1)} ms is over ${P99_LIMIT_MS} ms (${report})`);
});

test('an address longer than a regular expression may hold still reads as the bounce it is', async () => {
  // 60 KB: more than V8 takes in a RegExp ("Regular expression too large"), and the line within the 128 KiB the parser reads (read-limits.ts).
  const address = `ada@example${'.example'.repeat(7_500)}`;
  const raw = Buffer.from(`From: MAILER-DAEMON@mx.example.org\nSubject: Undelivered Mail Returned to Sender\n\n${address} <${address}>: host unreachable\n`);
  const started = performance.now();
  const { results } = await parseInboundMessage(raw);
  assert.equal(results[0]?.kind, 'soft_bounce');
  assert.ok(performance.now() - started < 2_000, 'within bounded time');
});
