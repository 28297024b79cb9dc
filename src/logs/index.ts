export { createLogSearchRepository, type LogFilter } from './log-search-repository.js';
export { createLogService, type LogEntryView, type LogQuery } from './log-service.js';
export { default as logRoutes, LogsQuery } from './log-routes.js';
export { type CounterDeltas, type LogEntryRow, createCounterDeltas, createLogsRepository } from './logs-repository.js';
