import { readFile } from 'node:fs/promises';
import { BOUNCE_REASONS } from './bounce-reasons.js';
import { parseInboundMessage } from './parse-report.js';
import type { InboundResult } from './types.js';

/**
 * `mailroom inbound parse FILE... [--json]`: what the parser makes of saved
 * messages, so an operator can see why a message was classified as it was.
 */

export interface ParsedFile {
  file: string;
  results: InboundResult[];
  /** Set instead of results when the file could not be read or parsed. */
  error?: string;
}

/** Parses each file in turn; a file that cannot be read gets an `error` and no results, and the others go on. */
export async function parseInboundFiles(files: string[]): Promise<ParsedFile[]> {
  const parsed: ParsedFile[] = [];
  for (const file of files) {
    try {
      const report = await parseInboundMessage(await readFile(file));
      parsed.push({ file, results: report.results.map(orderedResult) });
    } catch (err) {
      parsed.push({ file, results: [], error: err instanceof Error ? err.message : String(err) });
    }
  }
  return parsed;
}

/** The result with its fields in the documented order. */
function orderedResult(r: InboundResult): InboundResult {
  return { recipient: r.recipient, kind: r.kind, status: r.status, diagnostic: r.diagnostic, feedback_type: r.feedback_type, reason: r.reason };
}

/**
 * The CLI's output: with `json`, one line per file,
 * `{"file": …, "results": [{"recipient", "kind", "status", "diagnostic", "feedback_type", "reason"}]}`
 * (JSON Lines); without, a short block per file for people.
 */
export function formatParsedFiles(parsed: ParsedFile[], json: boolean): string {
  if (json) {
    return parsed.map((p) => `${JSON.stringify(p.error ? { file: p.file, results: p.results, error: p.error } : { file: p.file, results: p.results })}\n`).join('');
  }
  return parsed
    .map((p) => {
      if (p.error) return `${p.file}\n  error: ${p.error}\n`;
      const lines = p.results.map((r) => {
        const what = [r.kind, r.recipient ?? '-', r.status ?? '-', r.feedback_type].filter(Boolean).join('  ');
        const why = r.reason ? [`    reason: ${r.reason} (${BOUNCE_REASONS[r.reason].label})`] : [];
        return [`  ${what}`, ...(r.diagnostic ? [`    ${r.diagnostic}`] : []), ...why].join('\n');
      });
      return `${p.file}\n${lines.join('\n')}\n`;
    })
    .join('');
}
