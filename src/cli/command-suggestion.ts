/** Edits of more than this make a guess no one would recognise (commander's own limit: fewer than 3). */
const MAX_DISTANCE = 2;
/** Nor one that keeps less than this of the word. */
const MIN_SIMILARITY = 0.4;

/**
 * Words people type for something that is no command, with where it is instead. `send` first: a
 * `mailroom send` is what a Resend or Postmark user reaches for.
 */
const NOT_COMMANDS: Record<string, string> = {
  send: 'there is no send command: Mailroom sends through POST /v1/send or SMTP submission',
};

/** The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * What to add to "unknown command 'word'": the nearest of `commands` (each a command's path, whose last
 * word is matched: `create` finds `workspace create`), or, for a word near one of NOT_COMMANDS, where
 * that is; `(Did you mean workspace?)`, or '' when nothing is near.
 */
export function commandSuggestion(word: string, commands: string[]): string {
  let best: string[] = [];
  let bestDistance = MAX_DISTANCE + 1;
  const candidates = [...commands.map((path) => [path.split(' ').at(-1)!, path] as const), ...Object.keys(NOT_COMMANDS).map((name) => [name, name] as const)];
  for (const [name, path] of candidates) {
    const distance = editDistance(word, name);
    const length = Math.max(word.length, name.length);
    if ((length - distance) / length <= MIN_SIMILARITY || distance > bestDistance) continue;
    if (distance < bestDistance) [best, bestDistance] = [[], distance];
    best.push(path);
  }
  const near = best.filter((path) => !(path in NOT_COMMANDS)).sort();
  if (near.length > 0) return ` (Did you mean ${near.length === 1 ? near[0] : `one of ${near.join(', ')}`}?)`;
  const elsewhere = best.map((path) => NOT_COMMANDS[path]).find((hint) => hint !== undefined);
  return elsewhere ? ` (${elsewhere})` : '';
}
