export { createLogSearchRepository, type LogFilter } from './log-search-repository.js';
export { createLogService, type LogEntryView, type LogQuery } from './log-service.js';
export { default as logRoutes } from './log-routes.js';
