/** Delivery: the worker that claims jobs, builds each message, hands it to the upstream (SMTP relay, Amazon SES or the sandbox) and records every recipient's outcome, with retries. */
export { createDeliveryAttemptsRepository } from './delivery-attempts-repository.js';
export { createDeliveryJobsRepository } from './delivery-jobs-repository.js';
export { type DeliveryWorker, createDeliveryWorker } from './delivery-worker.js';
export { type TroubleCount } from './provider-trouble.js';
export { createProvider } from './providers.js';
export { createProviderStateRepository } from './provider-state-repository.js';
export { createUpstreamHealthRepository, upstreamHealthOf, type UpstreamHealthRow } from './upstream-health-repository.js';
export { BREAKER_RULE, createUpstreamBreaker, type UpstreamTransition } from './upstream-breaker.js';
export { createUpstreamRouter, providerForUpstream, serverUpstreamKey, type UpstreamRouter } from './upstream-router.js';
export { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS, DEFAULT_RETRY_MAX_DELAY_MS, type RetryPolicy } from './retry-policy.js';
export { createSandboxMessagesRepository } from './sandbox-messages-repository.js';
export { createThreadedMessageBuilder } from './threaded-message-builder.js';
