import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseInboundMessage } from '../src/inbound/parse-report.js';
import { BOUNCE_CORPUS as CORPUS, expectedByFile } from './helpers/bounce-corpus.js';

/**
 * The parser over the shared corpus of real bounces and complaints
 * (../shared/corpora/bounces; helpers/bounce-corpus.ts finds it, and a
 * corpus not found is a failure, not a skip). For each e-mail, the expected
 * results in `index` order are compared with the parser's results in order;
 * a missing or extra result counts as wrong. `npm run inbound:quality`
 * prints the same comparison as a confusion matrix, family by family.
 */

/** Share of results of the right kind below which the test fails (reached: 206/208, 99.0 %). */
const KIND_AGREEMENT_THRESHOLD = 0.985;
/** Share of expected status codes found exactly (reached: 157/159, 98.7 %). */
const STATUS_AGREEMENT_THRESHOLD = 0.98;

test('the parser agrees with the bounce corpus', async (t) => {
  const byFile = await expectedByFile();

  const started = performance.now();
  let right = 0;
  let compared = 0;
  let statusRight = 0;
  let statusCompared = 0;
  const perKind = new Map<string, { right: number; total: number }>();
  const misses: string[] = [];
  const statusMisses: string[] = [];

  for (const [file, rows] of byFile) {
    const { results } = await parseInboundMessage(await readFile(join(CORPUS, file)));
    for (let i = 0; i < Math.max(rows.length, results.length); i++) {
      const want = rows[i];
      const got = results[i];
      compared++;
      const kind = want?.kind ?? '(extra result)';
      const tally = perKind.get(kind) ?? { right: 0, total: 0 };
      tally.total++;
      if (want && got && want.kind === got.kind) {
        right++;
        tally.right++;
      } else {
        misses.push(
          `${file} #${i + 1}: expected ${want ? `${want.kind} (${want.reason}, ${want.sisimai_status})` : 'no result'}, ` +
            `got ${got ? `${got.kind} ${got.status ?? '-'} ${got.recipient ?? '-'}: ${got.diagnostic ?? ''}` : 'no result'}`,
        );
      }
      perKind.set(kind, tally);
      if (want?.status) {
        statusCompared++;
        if (got?.status === want.status) statusRight++;
        else statusMisses.push(`${file} #${i + 1}: expected ${want.status}, got ${got?.status ?? 'no status'}`);
      }
    }
  }

  const elapsed = performance.now() - started;
  const percent = (n: number, d: number) => `${((100 * n) / d).toFixed(1)} %`;
  const report = [
    `corpus: ${right}/${compared} results of the right kind (${percent(right, compared)}), in ${Math.round(elapsed)} ms`,
    `corpus: ${statusRight}/${statusCompared} expected status codes found (${percent(statusRight, statusCompared)})`,
    ...[...perKind].sort().map(([kind, { right: r, total }]) => `  ${kind}: ${r}/${total}`),
    ...(misses.length ? ['misses:', ...misses.map((m) => `  ${m}`)] : []),
    ...(statusMisses.length ? ['status misses:', ...statusMisses.map((m) => `  ${m}`)] : []),
  ];
  for (const line of report) t.diagnostic(line);
  console.log(report.join('\n'));

  assert.ok(compared >= 200, `the corpus holds about 200 results (read ${compared})`);
  assert.ok(right / compared >= KIND_AGREEMENT_THRESHOLD, `kind agreement ${percent(right, compared)} fell below ${KIND_AGREEMENT_THRESHOLD * 100} %`);
  assert.ok(
    statusRight / statusCompared >= STATUS_AGREEMENT_THRESHOLD,
    `status agreement ${percent(statusRight, statusCompared)} fell below ${STATUS_AGREEMENT_THRESHOLD * 100} %`,
  );
});
