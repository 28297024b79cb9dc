import type { FastifyInstance } from 'fastify';
import { HEALTH_PATH } from '../http/api-guard.js';

/**
 * SPEC.md §4.9: no key, no envelope. 503 names what is unreachable, so a load
 * balancer takes the process out and an operator sees why.
 */
export default async function healthRoutes(app: FastifyInstance) {
  app.get(HEALTH_PATH, async (_request, reply) => {
    const { down } = await app.services.health.check();
    if (down.length > 0) return reply.code(503).send({ status: 'unavailable', down });
    return { status: 'ok' };
  });
}
