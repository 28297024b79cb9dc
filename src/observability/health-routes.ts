import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { RETRY_AFTER_STORE_DOWN_SECONDS } from '../lib/errors.js';
import { HEALTH_PATH } from '../http/api-guard.js';
import { retryAfter } from '../openapi/index.js';

/** SPEC.md §4.9's answer, and the 503 that names what is unreachable. */
const HEALTH_SCHEMA = {
  operationId: 'checkHealth',
  summary: 'Health check (no key, no envelope)',
  tags: ['Health'],
  security: [],
  response: {
    200: Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false, description: 'The store (and Redis, when configured) answered.' }),
    503: Type.Object(
      { status: Type.Literal('unavailable'), down: Type.Array(Type.String({ enum: ['database', 'redis'] })) },
      { additionalProperties: false, description: 'Something the process needs did not answer within 2 s: `down` names it.', headers: retryAfter(true) },
    ),
  },
};

/**
 * SPEC.md §4.9: no key, no envelope. 503 names what is unreachable, so a load
 * balancer takes the process out and an operator sees why.
 */
export default async function healthRoutes(app: FastifyInstance) {
  // Probed every few seconds: logged at warn and above only, not at info.
  app.get(HEALTH_PATH, { schema: HEALTH_SCHEMA, logLevel: 'warn' }, async (_request, reply) => {
    const { down } = await app.services.health.check();
    if (down.length > 0) return reply.code(503).header('Retry-After', RETRY_AFTER_STORE_DOWN_SECONDS).send({ status: 'unavailable', down });
    return { status: 'ok' };
  });
}
