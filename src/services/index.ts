import type { Config } from '../config.js';
import { createAcceptedSendWriter } from '../repositories/accepted-send-writer.js';
import type { Store } from '../repositories/index.js';
import { createApiKeyService } from './api-key-service.js';
import { createDnsVerifier } from './dns-verifier.js';
import { createDomainService } from './domain-service.js';
import { createLogService } from './log-service.js';
import { createMemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { createSendService } from './send-service.js';
import { createWorkspaceService } from './workspace-service.js';

export function createServices(store: Store, config: Config, rateLimiter: RateLimiter = createMemoryRateLimiter()) {
  return {
    apiKeys: createApiKeyService(store),
    domains: createDomainService(store, createDnsVerifier(config.dnsServers), config),
    logs: createLogService(store),
    send: createSendService(store, createAcceptedSendWriter(store), config),
    workspaces: createWorkspaceService(store),
    rateLimiter,
  };
}

export type Services = ReturnType<typeof createServices>;
