import type { FastifyHelmetOptions } from '@fastify/helmet';

/**
 * @fastify/helmet's options for the dashboard's pages and API: a CSP that
 * allows scripts and styles from Mailroom itself only (no inline script, no
 * CDN), no framing (`frame-ancestors 'none'`), and the rest of helmet's
 * defaults (`nosniff` among them). Registered inside the dashboard's plugins
 * (helmet applies to the context that registers it), so /v1 is unchanged.
 *
 * Two of helmet's defaults are left out, because Mailroom is often reached
 * over plain HTTP on a private network (http://10.0.0.5:3000): with
 * `upgrade-insecure-requests` a browser would ask for the page's own scripts
 * over https and get nothing (it exempts only localhost), and HSTS, with
 * includeSubDomains, is the TLS-terminating proxy's decision for the whole
 * domain, not one application's.
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
      upgradeInsecureRequests: null,
    },
  },
  strictTransportSecurity: false,
};
