import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { MemberRole } from '../db/schema.js';
import { NotFoundError } from '../lib/errors.js';
import { requireAbility, type Ability } from '../people/index.js';
import type { Services } from '../composition/index.js';
import { sessionOf } from './session-guard.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The workspace a /workspaces/:workspaceId route acts on, and the signed-in user's role in it. */
    dashboardWorkspace: { id: string; role: MemberRole } | null;
  }
  interface FastifyContextConfig {
    /** What a workspace route needs the user's role to allow (people/roles.ts). */
    ability?: Ability;
  }
}

/** The params of a route acting in one workspace. */
export const WorkspaceParams = Type.Object({ workspaceId: Type.String() });

/**
 * Routes of the plugin `app` act in the workspace their `:workspaceId` names:
 * for a user who is not a member it does not exist (404, as for an unknown
 * id: another workspace's ids are not revealed), and the user's role there
 * must allow the route's ability (403).
 */
export function registerWorkspaceAccess(app: FastifyInstance, services: Pick<Services, 'users'>): void {
  app.decorateRequest('dashboardWorkspace', null);
  app.addHook('preHandler', async (request) => {
    const { workspaceId } = request.params as { workspaceId?: string };
    if (workspaceId === undefined) return;
    const role = await services.users.roleIn(sessionOf(request).userId, workspaceId);
    if (!role) throw new NotFoundError('Workspace not found');
    requireAbility(role, request.routeOptions.config?.ability ?? 'manage');
    request.dashboardWorkspace = { id: workspaceId, role };
  });
}

/** The workspace the route acts on; set by registerWorkspaceAccess. */
export function workspaceIdOf(request: FastifyRequest): string {
  if (!request.dashboardWorkspace) throw new NotFoundError('Workspace not found');
  return request.dashboardWorkspace.id;
}
