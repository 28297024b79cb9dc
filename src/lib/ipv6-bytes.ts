/** The 16 bytes of an IPv6 address (already known valid by `isIP`), dotted-quad tail included. */
export function ipv6Bytes(address: string): Uint8Array {
  let text = address.replace(/%.*$/, '');
  const words: number[] = [];
  const dotted = /(?<!\d)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  words.push(...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last);
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}
