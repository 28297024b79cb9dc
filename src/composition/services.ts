import type { Config } from '../config.js';
import { createAcceptedSendWriter, type AcceptedSendWriter, createSendService, createIdempotencyService, createCancelService, createRecipientLimit, SEND_MEMORY_BUDGET } from '../sending/index.js';
import type { Store } from '../db/store.js';
import type { HostResolver } from '../webhooks/index.js';
import { createApiKeyService } from '../api-keys/index.js';
import { createDnsVerifier, createDomainService } from '../domains/index.js';
import { createHealthService, type Metrics } from '../observability/index.js';
import { createLogService } from '../logs/index.js';
import { createStatsService } from '../stats/index.js';
import { createMessageDetailService } from '../messages/index.js';
import { createInvitationService, createMemberService, createSessionService, createSetupService, createUserService, createWorkspaceService } from '../people/index.js';
import { createMemoryRateLimiter, type RateLimiter } from '../lib/rate-limiter.js';
import { createSuppressionService } from '../suppressions/index.js';
import { createWebhookService } from '../webhooks/index.js';
import { createUpstreamService } from '../upstreams/index.js';
import { createByteBudget } from '../lib/byte-budget.js';
import { createSesEventsService } from '../ses-events/index.js';
import { createTemplateRenderService, createTemplateService } from '../templates/index.js';
import { createEngagementStats, createTrackingService, type EngagementWriter } from '../tracking/index.js';
import { createLogger } from './store-runtime.js';

export interface ServiceOptions {
  rateLimiter?: RateLimiter;
  /** Dependencies besides the store that the health check asks (Redis, when configured). */
  healthChecks?: Record<string, () => Promise<unknown>>;
  /** How accepted sends reach the store; by default batched on this thread (see server.ts for the SQLite one). */
  sendWriter?: AcceptedSendWriter;
  /** Where opens and clicks are written; by default batched on this thread (see server.ts for the SQLite one). */
  engagementWriter?: EngagementWriter;
  /** Hears of every send accepted with someone to deliver to, once it is durable. */
  onSendAccepted?: () => void;
  /** How webhook hosts are resolved for the SSRF check; the system's resolver by default. */
  resolveHost?: HostResolver;
  /** What readiness (GET /readyz) asks besides the health check's dependencies (the migrations). */
  readinessChecks?: Record<string, () => Promise<unknown>>;
  /** This process's metrics; without them (a CLI command), nothing is counted and /metrics is not served. */
  metrics?: Metrics;
  /** Certificates the SNS endpoint trusts besides Node's and NODE_EXTRA_CA_CERTS (in-process tests). */
  snsCa?: string;
}

export function createServices(store: Store, config: Config, options: ServiceOptions = {}) {
  const { rateLimiter = createMemoryRateLimiter(), sendWriter = createAcceptedSendWriter(store), healthChecks = {} } = options;
  const templateRendering = createTemplateRenderService(store);
  return {
    health: createHealthService({ database: () => store.ping(), ...healthChecks }),
    readiness: createHealthService({ database: () => store.ping(), ...healthChecks, ...options.readinessChecks }),
    apiKeys: createApiKeyService(store),
    domains: createDomainService(store, createDnsVerifier(config.dnsServers), config),
    logs: createLogService(store),
    messages: createMessageDetailService(store, { sesEventTimeoutMs: config.ses.eventTimeoutMs }),
    sesEvents: createSesEventsService(store, config.ses, { log: createLogger(config).child({ component: 'ses-events' }), ca: options.snsCa }),
    stats: createStatsService(store),
    engagement: createEngagementStats(store),
    idempotency: createIdempotencyService(store.idempotencyKeys),
    send: createSendService(store, sendWriter, config, {
      onAccepted: options.onSendAccepted,
      metrics: options.metrics,
      recipientLimit: createRecipientLimit(rateLimiter, config.rateLimits.recipientsPerMinute),
      templateRenderer: () => templateRendering.forRequest(),
    }),
    scheduledSends: createCancelService(store),
    suppressions: createSuppressionService(store),
    templates: createTemplateService(store),
    templateRendering,
    tracking: createTrackingService(store, config, { rateLimiter, log: createLogger(config).child({ component: 'tracking' }), writer: options.engagementWriter }),
    webhooks: createWebhookService(store, config, { resolveHost: options.resolveHost }),
    upstreams: createUpstreamService(store, config, { resolveHost: options.resolveHost }),
    workspaces: createWorkspaceService(store),
    users: createUserService(store),
    sessions: createSessionService(store, rateLimiter),
    setup: createSetupService(store),
    members: createMemberService(store),
    invitations: createInvitationService(store),
    rateLimiter,
    metrics: options.metrics,
    /** The memory large sends may take at once, shared by every way in (sending/send-memory.ts). */
    sendMemory: createByteBudget(SEND_MEMORY_BUDGET),
  };
}

export type Services = ReturnType<typeof createServices>;
