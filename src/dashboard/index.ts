import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../config.js';
import { withoutApiKeys } from '../http/api-guard.js';
import { activityRoutes } from './activity-routes.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { domainRoutes } from './domain-routes.js';
import { invitationLinkRoutes, invitationRoutes } from './invitation-routes.js';
import { memberRoutes } from './member-routes.js';
import { messageRoutes } from './message-routes.js';
import { DASHBOARD_HELMET } from './security-headers.js';
import { registerSessionGuard } from './session-guard.js';
import { sessionRoutes } from './session-routes.js';
import { sendRoutes } from './send-routes.js';
import { setupRoutes } from './setup-routes.js';
import { suppressionRoutes } from './suppression-routes.js';
import { templateRoutes } from './template-routes.js';
import { upstreamRoutes } from './upstream-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { registerWorkspaceAccess } from './workspace-access.js';

/**
 * The routes about workspaces and what they hold, behind one membership and
 * role check (workspace-access.ts) for every route naming a :workspaceId.
 */
const workspaceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerWorkspaceAccess(app, app.services);
  await app.register(memberRoutes);
  await app.register(activityRoutes);
  await app.register(messageRoutes);
  await app.register(sendRoutes);
  await app.register(invitationRoutes);
  await app.register(apiKeyRoutes);
  await app.register(domainRoutes);
  await app.register(suppressionRoutes);
  await app.register(webhookRoutes);
  await app.register(upstreamRoutes);
  await app.register(templateRoutes);
};

/** Where the dashboard's JSON API lives; `/v1` and its API keys are not used by it. */
export const DASHBOARD_API_PREFIX = '/dashboard/api';

/**
 * The dashboard's API, registered under DASHBOARD_API_PREFIX: session cookies
 * instead of API keys, its own rate limit per session, CSRF and Origin checks,
 * and the security headers of @fastify/helmet on every answer (a CSP without
 * inline script, frame-ancestors 'none', nosniff). Encapsulated: none of it
 * applies to /v1.
 */
export function dashboardApi(config: Config): FastifyPluginAsyncTypebox {
  return async (app) => {
    withoutApiKeys(app);
    await app.register(cookie);
    await app.register(helmet, DASHBOARD_HELMET);
    registerSessionGuard(app, app.services, config);
    await app.register(sessionRoutes(config));
    await app.register(setupRoutes(config));
    await app.register(invitationLinkRoutes(config));
    await app.register(workspaceRoutes);
  };
}
export { dashboardUi } from './ui.js';
