import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * The session cookie's attributes: HttpOnly, SameSite=Lax, whole site; Secure
 * behind an https PUBLIC_URL, and whenever the request came over https, as
 * the connection says or a proxy TRUST_PROXY trusts reports it
 * (X-Forwarded-Proto; Fastify's `request.protocol` takes it from no one else).
 */
export function sessionCookieOptions(config: Pick<Config, 'publicOrigin'>, request: Pick<FastifyRequest, 'protocol'>) {
  const secure = config.publicOrigin?.startsWith('https:') === true || request.protocol === 'https';
  return { path: '/', httpOnly: true, sameSite: 'lax', secure } as const;
}
