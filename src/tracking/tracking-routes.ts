import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/** A transparent 1×1 GIF, the smallest image every mail client shows. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NOT_A_LINK = 'This link is not valid, or it has expired.\n';

// Whatever the token and the query string hold, the answer is the pixel or the page, never the API's 400.
const TOKEN = Type.Object({ token: Type.String() }, { additionalProperties: false });
const ANY_QUERY = Type.Object({}, { additionalProperties: true });
// No key: tracked addresses are opened by mail clients and browsers. No JSON answers either: an image and a redirect.
const QUIET = { logLevel: 'warn', config: { withoutApiKey: true } } as const;

const requestOf = (request: FastifyRequest<{ Params: { token: string } }>) => ({
  token: request.params.token,
  method: request.method,
  userAgent: request.headers['user-agent'],
  address: request.ip,
});

/** `/t/o/<token>` and `/t/c/<token>` (docs/tracking.md), on the API's listener, under PUBLIC_URL or a domain's tracking host. */
const trackingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tracking = app.services.tracking;

  const openSchema = { operationId: 'trackOpen', summary: "A tracked message's open pixel: always the image, never cached", tags: ['Tracking'], security: [], params: TOKEN, querystring: ANY_QUERY };
  app.get('/t/o/:token', { ...QUIET, schema: openSchema }, async (request, reply) => {
    // The same answer for every token, valid or not: the pixel tells a prober nothing.
    await tracking.open(requestOf(request));
    return reply.header('cache-control', 'no-store, max-age=0').type('image/gif').send(PIXEL);
  });

  const clickSchema = { operationId: 'trackClick', summary: "A tracked link: 302 to the link's stored URL, or 404", tags: ['Tracking'], security: [], params: TOKEN, querystring: ANY_QUERY };
  app.get('/t/c/:token', { ...QUIET, schema: clickSchema }, async (request, reply) => {
    const url = await tracking.click(requestOf(request));
    reply.header('cache-control', 'no-store, max-age=0').header('referrer-policy', 'no-referrer');
    // Only ever a URL read from the stored message: an unknown or altered token goes nowhere (no open redirect).
    if (url === null) return reply.code(404).type('text/plain; charset=utf-8').send(NOT_A_LINK);
    return reply.redirect(url, 302);
  });
};

export default trackingRoutes;
