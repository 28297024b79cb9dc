import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '../config.js';

/**
 * Reads `.env` from `dir` into `env` when there is one, leaving every variable
 * already set alone: the real environment wins, as with `node --env-file`,
 * whose parser this is (Node's own: no dependency, and a file that works for
 * one works for the other). Answers the names the file supplied.
 */
export function loadEnvFile(dir: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): Set<string> {
  const path = join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new Set();
    throw new ConfigError(`Cannot read ${path} (${code ?? (error as Error).message})`);
  }
  const supplied = new Set<string>();
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    supplied.add(name);
  }
  return supplied;
}
