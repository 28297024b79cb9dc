import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InboundKind } from '../../src/inbound/types.js';

/**
 * The shared corpus of real bounces and complaints (../shared/corpora/bounces,
 * from sisimai's set-of-emails, with the outcomes sisimai's own test tables
 * record; its README explains them), as the corpus test and
 * `npm run inbound:quality` read it.
 *
 * The team's shared folder sits beside the checkout (`../shared`); a clone
 * elsewhere (CI's fresh clone) finds it at /work/shared, or wherever
 * MAILROOM_CORPORA_DIR says.
 */
export const BOUNCE_CORPUS =
  [process.env.MAILROOM_CORPORA_DIR, join(import.meta.dirname, '..', '..', '..', 'shared', 'corpora'), '/work/shared/corpora']
    .filter((dir): dir is string => Boolean(dir))
    .map((dir) => join(dir, 'bounces'))
    .find((dir) => existsSync(join(dir, 'expected.json'))) ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'corpora', 'bounces');

/** One expected result (expected.json's row). */
export interface ExpectedResult {
  file: string;
  index: number;
  kind: InboundKind;
  reason: string;
  status: string | null;
  sisimai_status: string | null;
  feedback_type: string | null;
}

/** The corpus's expected results by file, each file's in `index` order. */
export async function expectedByFile(): Promise<Map<string, ExpectedResult[]>> {
  const rows = JSON.parse(await readFile(join(BOUNCE_CORPUS, 'expected.json'), 'utf8')) as ExpectedResult[];
  const byFile = new Map<string, ExpectedResult[]>();
  for (const row of rows) byFile.set(row.file, [...(byFile.get(row.file) ?? []), row]);
  for (const list of byFile.values()) list.sort((a, b) => a.index - b.index);
  return byFile;
}

/**
 * The family a corpus file belongs to: its name up to the sample number
 * (`emails/lhost-postfix-21.eml` → `lhost-postfix`); a CRLF copy belongs to
 * the family of its LF original.
 */
export function familyOf(file: string): string {
  return file.replace(/^.*\//, '').replace(/^crlf-/, '').replace(/-\d+\.eml$/, '');
}
