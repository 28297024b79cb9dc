import { existsSync } from 'node:fs';
import { join } from 'node:path';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { withoutApiKeys } from '../http/api-guard.js';
import { DASHBOARD_HELMET } from './security-headers.js';

/** Where `npm run build:web` (run by `npm install`'s prepare) writes the UI: dist/web, found the same from src/dashboard and dist/dashboard. */
export const WEB_DIST = join(import.meta.dirname, '..', '..', 'dist', 'web');

/**
 * The UI's pages (web/src/app: the paths App and Shell show), each answered
 * with index.html so that its address can be reloaded or shared. Named one by
 * one rather than caught by a wildcard, which would take /v1's unknown paths
 * from the API guard and its 404 (test/dashboard-ui.test.ts checks the list).
 */
export const UI_PAGES = ['/', '/setup', '/logs', '/domains', '/upstreams', '/templates', '/api-keys', '/webhooks', '/suppressions', '/members', '/settings', '/invite'] as const;

/** The UI's pages of one thing each (Shell's pattern routes), answered with index.html whatever the id. */
export const UI_PAGE_PATTERNS = ['/messages/:id', '/templates/:id'] as const;

/** Any query string: the pages read theirs in the browser (the setup and invitation links' tokens). */
const AnyQuery = Type.Object({}, { additionalProperties: true });

/**
 * The dashboard's pages at `/`: the built files (hashed assets cached for a
 * year, the page itself revalidated), and index.html at each of UI_PAGES and
 * UI_PAGE_PATTERNS. With the security headers of the dashboard's API. Without
 * a build, a page answers 503 saying how to make one.
 */
export function dashboardUi(dist = WEB_DIST): FastifyPluginAsync {
  return async (app) => {
    withoutApiKeys(app);
    await app.register(helmet, DASHBOARD_HELMET);
    const built = existsSync(join(dist, 'index.html'));
    if (built) {
      await app.register(fastifyStatic, {
        root: dist,
        wildcard: false,
        index: false,
        setHeaders: (reply, path) => void reply.header('cache-control', path.startsWith(join(dist, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache'),
      });
    }
    const page = async (_request: FastifyRequest, reply: FastifyReply) => {
      if (!built) return reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run npm run build:web\n');
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    };
    for (const path of [...UI_PAGES, ...UI_PAGE_PATTERNS]) app.get(path, { schema: { querystring: AnyQuery } }, page);
  };
}
