import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { workspaceOf } from '../http/api-guard.js';
import { okJson } from '../http/envelope.js';
import { PAGING } from '../http/validation.js';
import { apiResponses, Nullable, Tags, Timestamp, TOTAL_COUNT } from '../openapi/index.js';

// SPEC.md §4.2's parameters as they were, and the search filters; `since`/`until` are checked by the
// service (parseRange), which can say what form they take. Anything else answers 400, naming it.
// Also the dashboard's (dashboard/): one rule for both ways in.
export const LogsQuery = Type.Object(
  {
    ...PAGING,
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    type: Type.Optional(Type.Enum(['send', 'bounce', 'complaint'])),
    status: Type.Optional(Type.Enum(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'])),
    message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    to: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    from_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    until: Type.Optional(Type.String({ maxLength: 64 })),
    // `name:value`, checked by the service (lib/tags.ts).
    tag: Type.Optional(Type.String({ maxLength: 600 })),
  },
  { additionalProperties: false },
);

/** SPEC.md §2.3, with `error` (DESIGN.md §2) and the send's `tags`; written by the store (log-page-json.ts). */
const LogEntry = Type.Object(
  {
    id: Type.String({ description: 'log_…' }),
    type: Type.String({ enum: ['send', 'bounce', 'complaint'] }),
    status: Type.String({ enum: ['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'failed'] }),
    to: Type.String(),
    from_email: Type.String({ description: "The sender's bare address." }),
    subject: Type.String(),
    message_id: Type.String(),
    error: Nullable(Type.String({ description: 'The detail of a failed, suppressed or bounced recipient.' })),
    created_at: Timestamp,
    tags: Tags,
  },
  { additionalProperties: false },
);

const LOGS_SCHEMA = {
  operationId: 'listLogs',
  summary: 'List and search log entries, newest first',
  tags: ['Logs and statistics'],
  querystring: LogsQuery,
  response: apiResponses(
    { 200: Type.Array(LogEntry) },
    {
      successHeaders: {
        ...TOTAL_COUNT,
        'X-Total-Count-Relation': Type.String({
          enum: ['eq', 'gte'],
          description: '`gte` when the total of a search by message, recipient, sender or tag was capped (X-Total-Count is then a lower bound).',
        }),
      },
    },
  ),
};

const logRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/send/logs', { schema: LOGS_SCHEMA }, async (request, reply) => {
    const { entries, total } = await app.services.logs.list(workspaceOf(request), request.query);
    reply.header('X-Total-Count', total.count);
    reply.header('X-Total-Count-Relation', total.relation);
    return reply.type('application/json').send(okJson(entries));
  });
};

export default logRoutes;
