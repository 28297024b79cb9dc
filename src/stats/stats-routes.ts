import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok, okJson } from '../http/envelope.js';
import { apiResponses, Timestamp } from '../openapi/index.js';

// Instants are checked by the service (parseRange), which can say what form it takes.
const Instant = Type.String({ maxLength: 64 });
export const StatsQuery = Type.Object({ since: Type.Optional(Instant), until: Type.Optional(Instant) }, { additionalProperties: false });
export const SeriesQuery = Type.Object(
  { interval: Type.Optional(Type.Enum(['hour', 'day'])), since: Type.Optional(Instant), until: Type.Optional(Instant) },
  { additionalProperties: false },
);

const COUNTS = {
  total_sent: Type.Integer(),
  delivered: Type.Integer(),
  bounced: Type.Integer(),
  complained: Type.Integer(),
  suppressed: Type.Integer(),
  failed: Type.Integer(),
};
/** SPEC.md §2.4. */
const Stats = Type.Object(COUNTS, { additionalProperties: false });
/** One bucket of the time series (series-json.ts writes them). */
const StatsBucket = Type.Object({ bucket_start: Timestamp, ...COUNTS }, { additionalProperties: false });

const STATS_SCHEMA = {
  operationId: 'getStats',
  summary: 'Statistics of the workspace, all time or over a range',
  tags: ['Logs and statistics'],
  querystring: StatsQuery,
  response: apiResponses({ 200: Stats }),
};
const SERIES_SCHEMA = {
  operationId: 'getStatsTimeseries',
  summary: 'Statistics per hour or day, zero-filled, oldest first',
  tags: ['Logs and statistics'],
  querystring: SeriesQuery,
  response: apiResponses({ 200: Type.Array(StatsBucket) }),
};

const statsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const stats = app.services.stats;

  app.get('/v1/send/stats', { schema: STATS_SCHEMA }, async (request) => ok(await stats.stats(workspaceOf(request), request.query)));

  app.get('/v1/send/stats/timeseries', { schema: SERIES_SCHEMA }, async (request, reply) =>
    reply.type('application/json').send(okJson(await stats.timeseries(workspaceOf(request), request.query))),
  );
};

export default statsRoutes;
