import type { Config } from '../config.js';

/** The session cookie's attributes: HttpOnly, SameSite=Lax, whole site, Secure behind an https PUBLIC_URL. */
export function sessionCookieOptions(config: Pick<Config, 'publicOrigin'>) {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: config.publicOrigin?.startsWith('https:') ?? false } as const;
}
