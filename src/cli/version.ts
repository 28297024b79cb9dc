import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Mailroom's version, from its package.json: found by walking up, so it reads the same from src/ and from a compiled dist/. */
export function mailroomVersion(from: string = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mailroom' && pkg.version) return pkg.version;
    } catch {
      // No package.json here (or not ours): look further up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
