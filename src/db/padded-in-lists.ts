/**
 * `values` cut into IN lists of at most `longest`, each list's length a power
 * of two, its last value repeated to fill it up (a repeat matches nothing
 * more): a handful of SQL texts serve every batch size (see compileOnce), and
 * PostgreSQL's prepared statements are reused, instead of one text per count.
 */
export function paddedInLists<T>(values: T[], longest: number): T[][] {
  const lists: T[][] = [];
  for (let start = 0; start < values.length; start += longest) {
    const list = values.slice(start, start + longest);
    let size = 1;
    while (size < list.length) size *= 2;
    lists.push(list.concat(Array<T>(size - list.length).fill(list[list.length - 1]!)));
  }
  return lists;
}
