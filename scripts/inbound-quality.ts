/**
 * `npm run inbound:quality [-- --misses]`: how the inbound parser does on the
 * shared bounce corpus, measured as the field would see it.
 *
 * Prints the confusion matrix (expected kind × parsed kind, one count per
 * expected result; a result the parser did not give is `(missing)`, one it
 * gave beyond the expected is counted in the `(extra)` row), the share of
 * files whose every result has the right kind, the share of results of the
 * right kind, of expected status codes found and of feedback types found.
 *
 * Then a leave-one-family-out table. A hand-written parser is not trained, so
 * "tuned without seeing the family" is approximated in the only honest way
 * there is: each family is scored twice, once with every recogniser and once
 * with the recognisers written for that family switched off
 * (`src/inbound/family-readers.ts` names the families each is for), leaving
 * only the generic layers (RFC 3464, the wording tables, the fallback scan).
 * The last column names the family's own recognisers, if any. The generic
 * layers' wording tables were written with the whole corpus in view: that is
 * said here rather than hidden.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readersFor } from '../src/inbound/family-readers.js';
import { parseInboundMessage, type ParseOptions } from '../src/inbound/parse-report.js';
import type { InboundResult } from '../src/inbound/types.js';
import { BOUNCE_CORPUS, expectedByFile, familyOf, type ExpectedResult } from '../test/helpers/bounce-corpus.js';

const KINDS = ['hard_bounce', 'soft_bounce', 'complaint', 'delivered', 'autoreply', 'none'] as const;
const MISSING = '(missing)';
const EXTRA = '(extra)';

interface Score {
  files: number;
  filesRight: number;
  results: number;
  resultsRight: number;
  statuses: number;
  statusesRight: number;
  feedbackTypes: number;
  feedbackTypesRight: number;
  /** expected kind → parsed kind → count */
  confusion: Map<string, Map<string, number>>;
  misses: string[];
}

function emptyScore(): Score {
  return { files: 0, filesRight: 0, results: 0, resultsRight: 0, statuses: 0, statusesRight: 0, feedbackTypes: 0, feedbackTypesRight: 0, confusion: new Map(), misses: [] };
}

function count(score: Score, expected: string, parsed: string): void {
  const row = score.confusion.get(expected) ?? new Map<string, number>();
  row.set(parsed, (row.get(parsed) ?? 0) + 1);
  score.confusion.set(expected, row);
}

/** Adds one file's comparison (expected rows against parsed results, in order) to the score. */
function scoreFile(score: Score, file: string, rows: ExpectedResult[], results: InboundResult[]): void {
  let allRight = rows.length === results.length;
  for (let i = 0; i < Math.max(rows.length, results.length); i++) {
    const want = rows[i];
    const got = results[i];
    if (!want) {
      count(score, EXTRA, got!.kind);
      score.misses.push(`${file} #${i + 1}: extra ${got!.kind} ${got!.recipient ?? '-'} ${got!.status ?? '-'}`);
      continue;
    }
    score.results++;
    count(score, want.kind, got?.kind ?? MISSING);
    if (got?.kind === want.kind) score.resultsRight++;
    else {
      allRight = false;
      score.misses.push(`${file} #${i + 1}: expected ${want.kind} (${want.reason} ${want.sisimai_status ?? '-'}), got ${got ? `${got.kind} ${got.status ?? '-'} ${got.recipient ?? '-'}: ${(got.diagnostic ?? '').slice(0, 140)}` : 'nothing'}`);
    }
    if (want.status) {
      score.statuses++;
      if (got?.status === want.status) score.statusesRight++;
      else score.misses.push(`${file} #${i + 1}: status ${want.status} expected, got ${got?.status ?? 'none'}`);
    }
    if (want.feedback_type) {
      score.feedbackTypes++;
      if (got?.feedback_type === want.feedback_type) score.feedbackTypesRight++;
    }
  }
  score.files++;
  if (allRight) score.filesRight++;
}

async function scoreCorpus(files: Map<string, ExpectedResult[]>, options: (file: string) => ParseOptions = () => ({})): Promise<Score> {
  const score = emptyScore();
  for (const [file, rows] of files) {
    const { results } = await parseInboundMessage(await readFile(join(BOUNCE_CORPUS, file)), options(file));
    scoreFile(score, file, rows, results);
  }
  return score;
}

const percent = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '-');
const pad = (text: string, width: number) => text.padStart(width);

function confusionTable(score: Score): string[] {
  const columns = [...KINDS, MISSING];
  const width = Math.max(...columns.map((c) => c.length)) + 1;
  const lines = [`${'expected \\ parsed'.padEnd(18)}${columns.map((c) => pad(c, width)).join('')}`];
  for (const kind of [...KINDS, EXTRA]) {
    const row = score.confusion.get(kind);
    if (!row) continue;
    lines.push(`${kind.padEnd(18)}${columns.map((c) => pad(String(row.get(c) ?? 0), width)).join('')}`);
  }
  return lines;
}

function summary(score: Score): string[] {
  return [
    `files with every result of the right kind: ${score.filesRight}/${score.files} (${percent(score.filesRight, score.files)})`,
    `results of the right kind:                 ${score.resultsRight}/${score.results} (${percent(score.resultsRight, score.results)})`,
    `expected status codes found:               ${score.statusesRight}/${score.statuses} (${percent(score.statusesRight, score.statuses)})`,
    `feedback types found:                      ${score.feedbackTypesRight}/${score.feedbackTypes} (${percent(score.feedbackTypesRight, score.feedbackTypes)})`,
  ];
}

async function familyTable(byFile: Map<string, ExpectedResult[]>): Promise<string[]> {
  const families = new Map<string, Map<string, ExpectedResult[]>>();
  for (const [file, rows] of byFile) {
    const family = familyOf(file);
    families.set(family, (families.get(family) ?? new Map()).set(file, rows));
  }
  const header = `${'family'.padEnd(24)}${pad('files', 6)}${pad('kind, all', 12)}${pad('kind, own off', 15)}${pad('status', 10)}  own recognisers`;
  const lines = [header];
  let ownOffRight = 0;
  let total = 0;
  for (const [family, files] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    const own = readersFor(family);
    const all = await scoreCorpus(files);
    const off = own.length ? await scoreCorpus(files, () => ({ without: new Set(own) })) : all;
    ownOffRight += off.filesRight;
    total += off.files;
    lines.push(
      `${family.padEnd(24)}${pad(String(all.files), 6)}${pad(`${all.filesRight}/${all.files}`, 12)}${pad(`${off.filesRight}/${off.files}`, 15)}` +
        `${pad(all.statuses ? `${all.statusesRight}/${all.statuses}` : '-', 10)}  ${own.join(', ') || '-'}`,
    );
  }
  lines.push(`every family scored with its own recognisers off: ${ownOffRight}/${total} files (${percent(ownOffRight, total)})`);
  return lines;
}

async function main(): Promise<void> {
  const byFile = await expectedByFile();
  const score = await scoreCorpus(byFile);
  const out = [
    `corpus: ${BOUNCE_CORPUS} (${byFile.size} files)`,
    '',
    'confusion matrix (one count per expected result):',
    ...confusionTable(score),
    '',
    ...summary(score),
    '',
    'leave-one-family-out (files with every result right; "own off": the recognisers written for that family switched off):',
    ...(await familyTable(byFile)),
  ];
  if (process.argv.includes('--misses')) out.push('', 'misses:', ...score.misses.map((m) => `  ${m}`));
  console.log(out.join('\n'));
}

await main();
