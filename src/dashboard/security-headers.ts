import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * @fastify/helmet's options for the dashboard's pages and API: a CSP that
 * allows scripts and styles from Mailroom itself only (no inline script, no
 * CDN), no framing (`frame-ancestors 'none'`), and the rest of helmet's
 * defaults (`nosniff` among them). Registered inside the dashboard's plugins
 * (helmet applies to the context that registers it), so /v1 is unchanged.
 */
export const DASHBOARD_HELMET: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      fontSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
};
