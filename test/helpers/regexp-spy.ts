import { relative, sep } from 'node:path';

/** A regular expression built at run time (`new RegExp(…)`), and the line of the sources that built it. */
export interface BuiltPattern {
  source: string;
  flags: string;
  /** `src/…/file.ts:line`, relative to the root given. */
  site: string;
}

/**
 * Records every RegExp that code under `root/dir` builds from now on, until
 * stop(): the global RegExp becomes a proxy of itself whose construction
 * notes the pattern and the first stack frame in `dir`. Install it before
 * the modules are loaded, since those build some patterns as they load.
 * Literals are not built this way; the sources are scanned for those.
 */
export function recordBuiltPatterns(root: string, dir: string): { built: Map<string, BuiltPattern>; stop(): void } {
  const Original = globalThis.RegExp;
  const built = new Map<string, BuiltPattern>();
  const under = `${root}${sep}${dir}${sep}`;
  const note = (pattern: RegExp) => {
    const frame = (new Error().stack ?? '').split('\n').find((line) => line.includes(under));
    const at = frame ? /\((.*):(\d+):\d+\)$|at (.*):(\d+):\d+$/.exec(frame) : null;
    if (!at) return pattern;
    const site = `${relative(root, at[1] ?? at[3]!)}:${at[2] ?? at[4]}`;
    const key = `${site} /${pattern.source}/${pattern.flags}`;
    if (!built.has(key)) built.set(key, { source: pattern.source, flags: pattern.flags, site });
    return pattern;
  };
  const spy: RegExpConstructor = new Proxy(Original, {
    construct: (target, args, newTarget): RegExp => note(Reflect.construct(target, args, newTarget === spy ? target : newTarget) as RegExp),
    apply: (target, self, args) => note(Reflect.apply(target, self, args) as RegExp),
  });
  globalThis.RegExp = spy;
  return {
    built,
    stop: () => {
      globalThis.RegExp = Original;
    },
  };
}
