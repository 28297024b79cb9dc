/** The suppression list: who is not sent to, why, and the API that reads and changes it; acceptance and delivery look recipients up on it. */
export { default as suppressionRoutes, SuppressionBody, SuppressionsQuery } from './suppression-routes.js';
export { createSuppressionService, SUPPRESSION_REASONS, type SuppressionReason, type SuppressionView } from './suppression-service.js';
export { addressesToLookUp, suppressedAmong, suppressedError } from './suppressed-recipients.js';
export { createSuppressionsRepository } from './suppressions-repository.js';
export { suppressOnBounceOrComplaint } from './suppression-handler.js';
