import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { ok } from '../http/envelope.js';
import { sessionCookieOptions } from './session-cookie.js';
import { SESSION_COOKIE, sessionOf } from './session-guard.js';
import { signedInAnswer } from './signed-in.js';

const SignInBody = Type.Object({ email: Type.String(), password: Type.String() }, { additionalProperties: false });
const PasswordBody = Type.Object({ current_password: Type.String(), new_password: Type.String() }, { additionalProperties: false });

/** Signing in and out, who is signed in, and changing one's password: /dashboard/api/session. */
export function sessionRoutes(config: Pick<Config, 'publicOrigin'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { sessions, users } = app.services;

    app.post('/session', { schema: { body: SignInBody }, config: { dashboardPublic: true } }, async (request, reply) => {
      const signedIn = await sessions.signIn({ ...request.body, clientAddress: request.ip });
      return ok(await signedInAnswer(reply, signedIn, users, config));
    });

    app.get('/session', async (request) => {
      const session = sessionOf(request);
      return ok({ user: await users.profile(session.userId), csrf_token: session.csrfToken, workspaces: await users.workspacesOf(session.userId) });
    });

    app.delete('/session', async (request, reply) => {
      await sessions.signOut(sessionOf(request));
      reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(config, request));
      return ok({ signed_out: true });
    });

    app.post('/session/password', { schema: { body: PasswordBody } }, async (request) => {
      const { endedSessions } = await sessions.changePassword(sessionOf(request), request.body.current_password, request.body.new_password);
      return ok({ ended_sessions: endedSessions });
    });
  };
}
