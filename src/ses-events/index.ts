/** SES's events heard through SNS (POST /v1/inbound/ses): the checks of a notification, and what each SES event does to a send. */
export { type SesEventsService, SnsNotificationRefusedError, createSesEventsService } from './ses-events-service.js';
export { default as sesEventsRoutes, SES_EVENTS_PATH } from './ses-events-routes.js';
export { createSnsRepository } from './sns-repository.js';
export { stringToSign, type SnsEnvelope } from './sns-envelope.js';
export { untrustedUrlReason } from './trusted-hosts.js';
