import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { ok } from '../http/envelope.js';
import { sessionOf } from './session-guard.js';
import { signedInAnswer } from './signed-in.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const RoleBody = Type.Object({ role: Type.String() }, { additionalProperties: false });
const InvitationParams = Type.Object({ workspaceId: Type.String(), id: Type.String() });
const TokenParams = Type.Object({ token: Type.String() });
const AccountBody = Type.Object({ email: Type.String(), password: Type.String() }, { additionalProperties: false });

/** A workspace's invitations, for its admins alone: make a link (shown once), list the pending ones, revoke. */
export const invitationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const invitations = app.services.invitations;
  const base = '/workspaces/:workspaceId/invitations';

  app.post(base, { schema: { params: WorkspaceParams, body: RoleBody }, config: { ability: 'manage' } }, async (request, reply) =>
    reply.code(201).send(ok(await invitations.create(workspaceIdOf(request), sessionOf(request).userId, request.body.role))),
  );

  app.get(base, { schema: { params: WorkspaceParams }, config: { ability: 'manage' } }, async (request) => ok(await invitations.listPending(workspaceIdOf(request))));

  app.delete(`${base}/:id`, { schema: { params: InvitationParams }, config: { ability: 'manage' } }, async (request) =>
    ok(await invitations.revoke(workspaceIdOf(request), request.params.id, sessionOf(request).userId)),
  );
};

/**
 * The link's side: what it offers (public), joining as the signed-in user, or
 * with a new account (public; signed in at once, as POST /session answers).
 */
export function invitationLinkRoutes(config: Pick<Config, 'publicOrigin'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    const { invitations, sessions, users } = app.services;

    app.get('/invitations/:token', { schema: { params: TokenParams }, config: { dashboardPublic: true } }, async (request) =>
      ok(await invitations.preview(request.params.token)),
    );

    app.post('/invitations/:token/accept', { schema: { params: TokenParams } }, async (request) =>
      ok(await invitations.accept(request.params.token, sessionOf(request).userId)),
    );

    app.post('/invitations/:token/account', { schema: { params: TokenParams, body: AccountBody }, config: { dashboardPublic: true } }, async (request, reply) => {
      const joined = await invitations.acceptWithAccount({ token: request.params.token, ...request.body });
      const signedIn = await sessions.openFor(joined.user);
      return reply.code(201).send(ok({ ...(await signedInAnswer(reply, signedIn, users, config)), workspace_id: joined.workspace_id }));
    });
  };
}
