/** Open and click tracking: an HTML body's links and open pixel rewritten, and which opens and clicks a machine made. */
export { rewriteHtml, type RewriteOptions, type RewriteResult } from './html-rewriter.js';
export {
  classifyClick,
  classifyOpen,
  CLICK_RULES,
  OPEN_RULES,
  type ClickRequest,
  type ClickRule,
  type ClickVerdict,
  type OpenRequest,
  type OpenRule,
  type OpenVerdict,
} from './machine-rules.js';
export { trackedHtmlFor, trackedLinksOf, trackingBaseUrl, type MessageTracking, type TrackableMessage, type TrackingHost } from './message-tracking.js';
export { deriveTrackingKey, readTrackingToken, trackingToken, type TrackedTarget } from './tracking-token.js';
export { createEngagementRepository, hourOf, type EngagementDelta } from './engagement-repository.js';
export { createEngagementRecorder, type EngagementHit, type EngagementRecorder } from './engagement-recorder.js';
export { default as trackingRoutes } from './tracking-routes.js';
export { createTrackingService, type TrackingService } from './tracking-service.js';
export { default as engagementRoutes } from './engagement-routes.js';
export { createEngagementStats, type Engagement, type EngagementBucket } from './engagement-stats.js';
export { createThreadedEngagementWriter, type EngagementWriter } from './threaded-engagement-writer.js';
