import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries the metrics token as a Bearer
 * token. Both sides are hashed first, so the comparison takes the same time
 * whatever the length of what was sent.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (presented === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

/** The 401's words, wherever /metrics is served. */
export const TOKEN_REQUIRED = 'A valid metrics token is required (Authorization: Bearer METRICS_TOKEN)\n';
