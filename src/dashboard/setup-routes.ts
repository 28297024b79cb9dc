import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { ok } from '../http/envelope.js';
import { signedInAnswer } from './signed-in.js';

const SetupBody = Type.Object(
  { token: Type.String(), email: Type.String(), password: Type.String(), workspace_name: Type.String() },
  { additionalProperties: false },
);

/** POST /dashboard/api/setup: the first admin and workspace, from the link the first start logged; signed in at once. */
export function setupRoutes(config: Pick<Config, 'publicOrigin'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { setup, sessions, users } = app.services;
    app.post('/setup', { schema: { body: SetupBody }, config: { dashboardPublic: true } }, async (request, reply) => {
      const { token, email, password, workspace_name: workspaceName } = request.body;
      const created = await setup.createFirstAdmin({ token, email, password, workspaceName });
      const signedIn = await sessions.openFor(created.user);
      return reply.code(201).send(ok({ ...(await signedInAnswer(reply, signedIn, users, config)), api_key: created.apiKey }));
    });
  };
}
