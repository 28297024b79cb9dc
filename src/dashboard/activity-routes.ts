import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok, okJson } from '../http/envelope.js';
import { LogsQuery } from '../logs/index.js';
import { SeriesQuery, StatsQuery } from '../stats/index.js';
import { WorkspaceParams, workspaceIdOf } from './workspace-access.js';

/**
 * What a workspace's mail did, through the same services as /v1/send/logs,
 * /v1/send/stats and /v1/send/stats/engagement: every role reads. The logs answer `{entries, total}` in one
 * body (the UI has no use for /v1's X-Total-Count headers), the entries as
 * the JSON text the store wrote.
 */
export const activityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { logs, stats, engagement } = app.services;
  const base = '/workspaces/:workspaceId';

  app.get(`${base}/logs`, { schema: { params: WorkspaceParams, querystring: LogsQuery }, config: { ability: 'read' } }, async (request, reply) => {
    const { entries, total } = await logs.list(workspaceIdOf(request), request.query);
    return reply.type('application/json').send(okJson(`{"entries":${entries},"total":${JSON.stringify(total)}}`));
  });

  app.get(`${base}/stats`, { schema: { params: WorkspaceParams, querystring: StatsQuery }, config: { ability: 'read' } }, async (request) =>
    ok(await stats.stats(workspaceIdOf(request), request.query)),
  );

  app.get(`${base}/stats/timeseries`, { schema: { params: WorkspaceParams, querystring: SeriesQuery }, config: { ability: 'read' } }, async (request, reply) =>
    reply.type('application/json').send(okJson(await stats.timeseries(workspaceIdOf(request), request.query))),
  );

  app.get(`${base}/engagement`, { schema: { params: WorkspaceParams, querystring: StatsQuery }, config: { ability: 'read' } }, async (request) =>
    ok(await engagement.totals(workspaceIdOf(request), request.query)),
  );
};
