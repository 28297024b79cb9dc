export { createCountersRepository, type CounterRow } from './counters-repository.js';
export { countsInRange, rangeParts } from './range-counts.js';
export { statsOf, type Stats } from './stats.js';
export { createStatsService, MAX_BUCKETS, seriesRange, type StatsBucket } from './stats-service.js';
export { default as statsRoutes, SeriesQuery, StatsQuery } from './stats-routes.js';
export { LOG_COUNT_COLUMNS, type LogCountColumn, countColumnOf } from './log-count-columns.js';
