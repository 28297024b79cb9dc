/** How a command prints what it made or found: one JSON document with --json, else text for people. */
export function printResult(json: boolean | undefined, data: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data)}\n` : text());
}

/** Rows under a header, columns padded to their widest cell; `empty` when there are no rows. */
export function formatTable(header: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `${empty}\n`;
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  return [header, ...rows].map((row) => `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`).join('');
}
