/**
 * Text another system wrote (a relay's reply, a webhook receiver's answer, a
 * bounce report), as Mailroom can store it: U+0000 as U+FFFD. PostgreSQL's
 * text cannot hold a NUL, and a reply that cannot be recorded is worse than
 * one character lost: the hand-over or the post is repeated once the lease
 * ends (duplicate mail, the same event again), or the report is refused for
 * good.
 */
export function storableText(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

/** storableText for every string of a value read from outside: plain objects and arrays, as parsers make them. */
export function storableTexts<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map(storableTexts) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, storableTexts(v)])) as T;
  }
  return value;
}
