import type { FastifyInstance } from 'fastify';
import { HEALTH_PATH } from '../http/api-guard.js';

/** SPEC.md §4.9: no key, no envelope. */
export default async function healthRoutes(app: FastifyInstance) {
  app.get(HEALTH_PATH, async () => ({ status: 'ok' }));
}
