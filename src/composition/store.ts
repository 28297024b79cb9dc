import { pingDatabase, type Db } from '../db/database.js';
import type { Repositories, Store } from '../db/store.js';
import { createAcceptanceChecksRepository, createMessagesRepository, createIdempotencyRepository, createAttachmentsRepository } from '../sending/index.js';
import { createApiKeysRepository } from '../api-keys/index.js';
import { createDeliveryAttemptsRepository, createDeliveryJobsRepository, createProviderStateRepository, createSandboxMessagesRepository, createUpstreamHealthRepository } from '../delivery/index.js';
import { createUpstreamsRepository } from '../upstreams/index.js';
import { createDomainsRepository } from '../domains/index.js';
import { createInboundReportsRepository } from '../inbound/index.js';
import { createCounterDeltas, createLogsRepository, type CounterDeltas, createLogSearchRepository } from '../logs/index.js';
import { createMessageEventsRepository } from '../events/index.js';
import { createServerSecretsRepository, createStoredSecretsRepository } from '../secrets/index.js';
import { createSuppressionsRepository, suppressOnBounceOrComplaint } from '../suppressions/index.js';
import { fanOutToWebhooks, createWebhooksRepository, createWebhookDeliveriesRepository } from '../webhooks/index.js';
import { createWorkspacesRepository, createUsersRepository, createSessionsRepository, createMembersRepository, createInvitationsRepository } from '../people/index.js';
import { createCountersRepository } from '../stats/index.js';
import { createMessageMimeRepository, createMessageDetailRepository } from '../messages/index.js';
import { createRetentionRepository } from '../retention/index.js';
import { createSnsRepository } from '../ses-events/index.js';
import { createTemplatesRepository } from '../templates/index.js';
import { createEngagementRepository } from '../tracking/index.js';

/** What acts on every published event, in order, inside its transaction (events/event-path.ts). */
const EVENT_HANDLERS = [suppressOnBounceOrComplaint, fanOutToWebhooks] as const;

function bind(db: Db, counters?: CounterDeltas): Repositories {
  return {
    eventHandlers: EVENT_HANDLERS,
    workspaces: createWorkspacesRepository(db),
    acceptanceChecks: createAcceptanceChecksRepository(db),
    apiKeys: createApiKeysRepository(db),
    attachments: createAttachmentsRepository(db),
    counters: createCountersRepository(db),
    deliveryAttempts: createDeliveryAttemptsRepository(db),
    deliveryJobs: createDeliveryJobsRepository(db),
    domains: createDomainsRepository(db),
    engagement: createEngagementRepository(db),
    idempotencyKeys: createIdempotencyRepository(db),
    inboundReports: createInboundReportsRepository(db),
    invitations: createInvitationsRepository(db),
    logs: createLogsRepository(db, counters),
    logSearch: createLogSearchRepository(db),
    members: createMembersRepository(db),
    messageDetail: createMessageDetailRepository(db),
    messageEvents: createMessageEventsRepository(db),
    messageMime: createMessageMimeRepository(db),
    messages: createMessagesRepository(db),
    retention: createRetentionRepository(db),
    suppressions: createSuppressionsRepository(db),
    users: createUsersRepository(db),
    sandboxMessages: createSandboxMessagesRepository(db),
    providerState: createProviderStateRepository(db),
    serverSecrets: createServerSecretsRepository(db),
    storedSecrets: createStoredSecretsRepository(db),
    sessions: createSessionsRepository(db),
    sns: createSnsRepository(db),
    templates: createTemplatesRepository(db),
    upstreamHealth: createUpstreamHealthRepository(db),
    upstreams: createUpstreamsRepository(db),
    webhookDeliveries: createWebhookDeliveriesRepository(db),
    webhooks: createWebhooksRepository(db),
  };
}

export function createStore(db: Db): Store {
  return {
    ...bind(db),
    transaction: (work) =>
      db.transaction().execute(async (trx) => {
        const counters = createCounterDeltas();
        const result = await work(bind(trx, counters));
        await counters.apply(trx);
        return result;
      }),
    snapshot: (work) =>
      db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => work(bind(trx))),
    ping: () => pingDatabase(db),
  };
}
