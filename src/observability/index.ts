/** Metrics, health probes, request ids and the log's format (docs/monitoring.md). */
export { createMetrics, type Metrics, type MetricsOptions, type SendWay } from './metrics.js';
export { startMetricsListener, type MetricsListener } from './metrics-listener.js';
export { monitoringRoutes, timeRequests, LIVENESS_PATH, READINESS_PATH, METRICS_PATH } from './monitoring-routes.js';
export { answerRequestId, requestIdOptions, REQUEST_ID_HEADER } from './request-id.js';
export { createLogger, logDestination } from './log-format.js';
export { default as healthRoutes } from './health-routes.js';
export { createHealthService, NotReadyError } from './health-service.js';
