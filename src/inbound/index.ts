/** Inbound reports: the SMTP receiver for bounces and complaints, the parsers that read them, and what each report does to a send. */
export { classifyFinding, statusReason } from './bounce-classifier.js';
export { bounceSubtypeOf, isBounceReason } from './bounce-reasons.js';
export type { SesNotification, SesRecipient } from './amazon-ses.js';
export { isComplaintFeedback } from './feedback-report.js';
export { type InboundReceiver, startInboundReceiver } from './inbound-receiver.js';
export { createInboundReportService } from './inbound-report-service.js';
export { createInboundReportsRepository } from './inbound-reports-repository.js';
export { formatParsedFiles, parseInboundFiles } from './parse-files.js';
export { certainlyUnknownUser, matches } from './reason-patterns.js';
export { loadReturnPathKeys } from './return-path-key.js';
export { type ReturnPathSigner, createReturnPathSigner } from './return-path.js';
export { type BounceReason, type SmtpCommand, emptyFinding } from './types.js';
