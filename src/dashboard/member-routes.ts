import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ok } from '../http/envelope.js';
import { sessionOf } from './session-guard.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

const WorkspaceBody = Type.Object({ name: Type.String() }, { additionalProperties: false });
const MemberParams = Type.Object({ workspaceId: Type.String(), userId: Type.String() });
const RoleBody = Type.Object({ role: Type.String() }, { additionalProperties: false });

/** Creating a workspace (its creator its admin), renaming it (admins), and its members: everyone sees them; admins change roles and remove. */
export const memberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const members = app.services.members;

  app.post('/workspaces', { schema: { body: WorkspaceBody } }, async (request, reply) =>
    reply.code(201).send(ok(await members.createWorkspace(sessionOf(request).userId, request.body.name))),
  );

  app.patch('/workspaces/:workspaceId', { schema: { params: WorkspaceParams, body: WorkspaceBody }, config: { ability: 'manage' } }, async (request) =>
    ok(await app.services.workspaces.rename(workspaceIdOf(request), request.body.name)),
  );

  app.get('/workspaces/:workspaceId/members', { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) =>
    ok(await members.list(workspaceIdOf(request))),
  );

  app.patch('/workspaces/:workspaceId/members/:userId', { schema: { params: MemberParams, body: RoleBody }, config: { ability: 'manage' } }, async (request) =>
    ok(await members.changeRole(workspaceIdOf(request), request.params.userId, request.body.role)),
  );

  app.delete('/workspaces/:workspaceId/members/:userId', { schema: { params: MemberParams }, config: { ability: 'manage' } }, async (request) =>
    ok(await members.remove(workspaceIdOf(request), request.params.userId)),
  );
};
