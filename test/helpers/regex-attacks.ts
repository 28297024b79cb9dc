/**
 * Adversarial inputs for one regular expression, derived from its own shape.
 * A pattern that backtracks super-linearly does so on a prefix that leads it
 * into a quantified part, a long run of what that part (and a neighbour)
 * both take, and an end it does not expect: `Message-ID: ` + `@`… + ` x` is
 * the shape of the issue that found `[^<>\s]+@[^<>\s]+`. So the inputs are
 * prefix × pump × suffix:
 * - prefixes: a string the pattern reads as far as each place where a
 *   quantified part starts (its "skeleton" up to there), along each of the
 *   first few alternatives of every alternation;
 * - pumps: each character any part of the pattern takes (among printable
 *   ASCII, tab, CR, LF and a non-ASCII letter), alone and paired with a
 *   letter or a space, and each prefix itself;
 * - suffixes: nothing, or a separator the pattern knows followed by a
 *   character no pattern expects.
 */

/** The characters a pattern's parts are tested against. */
const CANDIDATES = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', '\r', '\u00e9'];
const SEPARATORS = new Set([' ', '\t', '\n', '<', '>', '(', ')', '"', ':', ';', ',', '.', '@', '=', '[', ']']);
const STRAY = '\u0001';
const MAX_ALTERNATIVE = 3;

type Node =
  | { kind: 'atom'; chars: string[] }
  | { kind: 'empty' }
  | { kind: 'group'; alternatives: Node[][]; look: boolean }
  | { kind: 'repeat'; node: Node; min: number };

/** Reads `source` into the nodes above; what matches no character (anchors, boundaries, back references) is `empty`. */
function parse(source: string, flags: string): Node[][] {
  const atomFlags = flags.replace(/[gym]/g, '');
  let i = 0;
  const charsOf = (atom: string): string[] => {
    try {
      const whole = new RegExp(`^(?:${atom})$`, atomFlags);
      return CANDIDATES.filter((c) => whole.test(c));
    } catch {
      return []; // a part that is valid only in its context (a lone quantifier character, say)
    }
  };
  const alternatives = (): Node[][] => {
    const all: Node[][] = [[]];
    while (i < source.length && source[i] !== ')') {
      if (source[i] === '|') {
        i++;
        all.push([]);
        continue;
      }
      const node = quantified(term());
      all[all.length - 1]!.push(node);
    }
    return all;
  };
  const quantified = (node: Node): Node => {
    const rest = source.slice(i);
    const q = /^(?:([*+?])|\{(\d+)(,\d*)?\})\??/.exec(rest);
    if (!q) return node;
    i += q[0].length;
    const min = q[1] === '+' ? 1 : q[1] ? 0 : Number(q[2]);
    return { kind: 'repeat', node, min };
  };
  const term = (): Node => {
    const c = source[i]!;
    if (c === '(') {
      const head = /^\((\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(source.slice(i))!;
      i += head[0].length;
      const look = /^\(\?(?:=|!|<=|<!)$/.test(head[0]);
      const inner = alternatives();
      i++; // ')'
      return { kind: 'group', alternatives: inner, look };
    }
    if (c === '[') {
      const start = i;
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
      i++;
      return { kind: 'atom', chars: charsOf(source.slice(start, i)) };
    }
    if (c === '\\') {
      const escape = /^\\(?:[bB]|[1-9]\d*|k<[^>]+>)/.exec(source.slice(i));
      if (escape) {
        i += escape[0].length;
        return { kind: 'empty' };
      }
      const atom = /^\\(?:u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|[pP]\{[^}]+\}|.)/.exec(source.slice(i))![0];
      i += atom.length;
      return { kind: 'atom', chars: charsOf(atom) };
    }
    i++;
    if (c === '^' || c === '$') return { kind: 'empty' };
    return { kind: 'atom', chars: charsOf(c === '.' ? '.' : c.replace(/[{}]/, '\\$&')) };
  };
  return alternatives();
}

/** The character a part is written with in a skeleton: a letter if it takes one, else its first. */
const representative = (chars: string[]) => chars.find((c) => /[a-z]/.test(c)) ?? chars.find((c) => /[A-Z0-9]/.test(c)) ?? chars[0] ?? '';

/**
 * The skeletons of a sequence (each alternation along its alternative `choice`, or its last if it has
 * fewer), with the offsets in it where a quantified part starts.
 */
function skeleton(sequence: Node[], choice: number): { text: string; cuts: number[] } {
  let text = '';
  const cuts: number[] = [0];
  const walk = (node: Node) => {
    if (node.kind === 'atom') text += representative(node.chars);
    else if (node.kind === 'group') {
      if (!node.look) node.alternatives[Math.min(choice, node.alternatives.length - 1)]!.forEach(walk);
    } else if (node.kind === 'repeat') {
      cuts.push(text.length);
      for (let n = 0; n < Math.min(Math.max(node.min, 1), 4); n++) walk(node.node);
      cuts.push(text.length);
    }
  };
  sequence.forEach(walk);
  return { text, cuts };
}

/** Largest class whose every character an attack tries; of a larger one, only its representative. */
const SMALL_CLASS = 12;

function everyAtom(nodes: Node[], into: Set<string>): Set<string> {
  for (const node of nodes) {
    if (node.kind === 'atom') (node.chars.length <= SMALL_CLASS ? node.chars : [representative(node.chars)]).forEach((c) => c && into.add(c));
    else if (node.kind === 'group') node.alternatives.forEach((a) => everyAtom(a, into));
    else if (node.kind === 'repeat') everyAtom([node.node], into);
  }
  return into;
}

export interface AttackShape {
  prefix: string;
  pump: string;
  suffix: string;
}

/** The prefix × pump × suffix shapes for a pattern (see the head of this file). */
export function attackShapes(source: string, flags: string): AttackShape[] {
  const top = parse(source, flags);
  const prefixes = new Set<string>();
  for (const sequence of top.slice(0, MAX_ALTERNATIVE + 1)) {
    for (let choice = 0; choice <= MAX_ALTERNATIVE; choice++) {
      const { text, cuts } = skeleton(sequence, choice);
      for (const cut of cuts) prefixes.add(text.slice(0, cut));
    }
  }
  // The characters the pattern names (literals, small classes such as \s or [ \t>]) are what an attack
  // repeats; of a large class (a letter, anything but `<`) its representative stands for the rest.
  const named = [...everyAtom(top.flat(), new Set())];
  const letter = named.includes('a') ? 'a' : (named.find((c) => /[A-Za-z0-9]/.test(c)) ?? 'a');
  const pumps = new Set<string>(['@', '<', ' ', '=?', letter, '0', '\t', '\n', '\u00e9']);
  for (const c of named) {
    pumps.add(c);
    if (c !== letter) pumps.add(letter + c);
    if (c !== ' ') pumps.add(c + ' ');
  }
  // The pattern's own lead repeated (`address ` for /address .+ has been replaced by /): each copy is a new
  // start from which a greedy part runs to the end and back.
  for (const prefix of prefixes) if (prefix.length >= 2) pumps.add(prefix);
  const suffixes = ['', STRAY, ...named.filter((c) => SEPARATORS.has(c)).map((c) => c + STRAY)];
  const shapes: AttackShape[] = [];
  for (const prefix of prefixes) for (const pump of pumps) for (const suffix of suffixes) shapes.push({ prefix, pump, suffix });
  return shapes;
}

/** A shape made `length` characters long (the pump repeated to fill it). */
export function inputOf({ prefix, pump, suffix }: AttackShape, length: number): string {
  const repeats = Math.max(1, Math.ceil((length - prefix.length - suffix.length) / pump.length));
  return prefix + pump.repeat(repeats) + suffix;
}

/** The inputs the issue names, for every pattern: runs of `@`, `<`, spaces, `=?`, and parentheses nested that deep. */
export function namedAttacks(length: number): Array<{ name: string; input: string }> {
  const half = Math.floor(length / 2);
  return [
    { name: 'repeated @', input: '@'.repeat(length) },
    { name: 'repeated <', input: '<'.repeat(length) },
    { name: 'repeated spaces', input: ' '.repeat(length) },
    { name: 'repeated =?', input: '=?'.repeat(half) },
    { name: 'nested parentheses', input: '('.repeat(half) + ')'.repeat(half) },
    { name: 'nested parentheses, unclosed', input: '(a'.repeat(half) },
  ];
}
