import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { ok } from '../http/envelope.js';
import { apiResponses, Timestamp } from '../openapi/index.js';
import { SeriesQuery, StatsQuery } from '../stats/index.js';

const COUNTS = {
  opened: Type.Integer({ description: "People's opens (Gmail's proxied ones among them), every time." }),
  unique_opened: Type.Integer({ description: 'Recipients whose first open by a person fell in the range.' }),
  clicked: Type.Integer({ description: "People's clicks, every time." }),
  unique_clicked: Type.Integer({ description: 'Recipients whose first click by a person fell in the range.' }),
  machine_opened: Type.Integer({ description: "Opens by machines: Apple Mail Privacy Protection's prefetches, scanners (docs/tracking.md)." }),
  machine_clicked: Type.Integer({ description: "Clicks by machines: link scanners' pre-clicks." }),
  tracked_opens: Type.Integer({ description: 'Recipients handed over with open tracking on: what open rates are of.' }),
  tracked_clicks: Type.Integer({ description: 'Recipients handed over with click tracking on: what click rates are of.' }),
};
const Engagement = Type.Object(COUNTS, { additionalProperties: false });
const EngagementBucket = Type.Object({ bucket_start: Timestamp, ...COUNTS }, { additionalProperties: false });

const TOTALS_SCHEMA = {
  operationId: 'getEngagementStats',
  summary: 'Opens and clicks of tracked mail, all time or over a range (whole hours)',
  tags: ['Logs and statistics'],
  querystring: StatsQuery,
  response: apiResponses({ 200: Engagement }),
};
const SERIES_SCHEMA = {
  operationId: 'getEngagementTimeseries',
  summary: 'Opens and clicks per hour or day, zero-filled, oldest first',
  tags: ['Logs and statistics'],
  querystring: SeriesQuery,
  response: apiResponses({ 200: Type.Array(EngagementBucket) }),
};

/** Beside SPEC.md's /v1/send/stats, which stays as it is: engagement has routes of its own. */
const engagementRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const engagement = app.services.engagement;
  app.get('/v1/send/stats/engagement', { schema: TOTALS_SCHEMA }, async (request) => ok(await engagement.totals(workspaceOf(request), request.query)));
  app.get('/v1/send/stats/engagement/timeseries', { schema: SERIES_SCHEMA }, async (request) => ok(await engagement.timeseries(workspaceOf(request), request.query)));
};

export default engagementRoutes;
