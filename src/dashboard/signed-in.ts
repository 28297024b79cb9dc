import type { FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { SESSION_LIFETIME_MS, type SignedIn } from '../people/index.js';
import type { Services } from '../composition/index.js';
import { sessionCookieOptions } from './session-cookie.js';
import { SESSION_COOKIE } from './session-guard.js';

/**
 * What every way of signing in answers (POST /session, /setup, an invitation
 * taken with a new account): the session's cookie, and `{user, csrf_token,
 * workspaces}`, so that the UI treats them alike.
 */
export async function signedInAnswer(reply: FastifyReply, signedIn: SignedIn, users: Services['users'], config: Pick<Config, 'publicOrigin'>) {
  reply.setCookie(SESSION_COOKIE, signedIn.token, { ...sessionCookieOptions(config, reply.request), maxAge: SESSION_LIFETIME_MS / 1000 });
  return { user: signedIn.user, csrf_token: signedIn.csrfToken, workspaces: await users.workspacesOf(signedIn.user.id) };
}
