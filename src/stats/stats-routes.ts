import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok, okJson } from '../http/envelope.js';

// Instants are checked by the service (parseRange), which can say what form it takes.
const Instant = Type.String({ maxLength: 64 });
export const StatsQuery = Type.Object({ since: Type.Optional(Instant), until: Type.Optional(Instant) }, { additionalProperties: false });
export const SeriesQuery = Type.Object(
  { interval: Type.Optional(Type.Enum(['hour', 'day'])), since: Type.Optional(Instant), until: Type.Optional(Instant) },
  { additionalProperties: false },
);

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const stats = app.services.stats;

  app.get('/v1/send/stats', { schema: { querystring: StatsQuery } }, async (request) => ok(await stats.stats(workspaceOf(request), request.query)));

  app.get('/v1/send/stats/timeseries', { schema: { querystring: SeriesQuery } }, async (request, reply) =>
    reply.type('application/json').send(okJson(await stats.timeseries(workspaceOf(request), request.query))),
  );
};

export default statsRoutes;
