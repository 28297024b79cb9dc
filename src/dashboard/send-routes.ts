import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../http/envelope.js';
import { SendBody } from '../sending/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

/**
 * A test e-mail from the dashboard, through the same service as /v1/send
 * (same validation, same sender-domain rule, same log entries): admins and
 * developers send; everyone may see which domains mail can come from. Drawn
 * from the session's own limit, not from any API key's; its recipients from
 * the workspace's recipients per minute, as every send's (sending/recipient-limit.ts).
 */
export const sendRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const send = app.services.send;

  app.get('/workspaces/:workspaceId/sender-domains', { schema: { params: WorkspaceParams }, config: { ability: 'read' } }, async (request) =>
    ok(await send.senderDomains(workspaceIdOf(request))),
  );

  app.post('/workspaces/:workspaceId/send', { schema: { params: WorkspaceParams, body: SendBody }, config: { ability: 'configure' } }, async (request) =>
    ok(await send.accept(workspaceIdOf(request), request.body, null, 'dashboard')),
  );
};
