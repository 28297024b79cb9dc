/** Upstreams: a workspace's own SMTP relays and SES accounts, their API, and the route of each domain through them. */
export { createUpstreamsRepository, type UpstreamRow } from './upstreams-repository.js';
export { createUpstreamService, type UpstreamView, type UpstreamTestResult } from './upstream-service.js';
export { default as upstreamRoutes, UpstreamBody, UpstreamPatch } from './upstream-routes.js';
export type { UpstreamInput } from './upstream-input.js';
