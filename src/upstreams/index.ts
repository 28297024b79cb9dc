/** Upstreams: a workspace's own SMTP relays and SES accounts, their API, and the route of each domain through them. */
export { createUpstreamsRepository, type UpstreamRow } from './upstreams-repository.js';
